"""Interface contracts read from the vendor's documents and host code, written as operator-data
files (``spec.operator_data``): ``aclnn-conformance extract REPO_CHECKOUT... --out DIR``."""
