"""The real CANN aclnn libraries through ctypes (see backend.py and libraries.py)."""
from aclnn_conformance.backends.aclnn.backend import AclnnBackend, BackendUnavailable

__all__ = ["AclnnBackend", "BackendUnavailable"]
