"""From outcome records to compliance reports."""
