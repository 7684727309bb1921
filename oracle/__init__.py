"""NumPy reference implementations (oracles), one module per operator."""
