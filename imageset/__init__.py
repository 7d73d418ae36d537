"""fox-avatar's image set, on the build side: this package is its one owner. It writes a set's
manifest.tsv, reads and checks it, and derives everything else from it; its modules and readers:
imageset/README.md. Standard library only, within Debian's python3-minimal (the Nginx image runs it
there); imports are relative, so the package works under either name (the Ansible collection carries
it as plugin_utils/imageset).
"""
from .manifest import ManifestError, read_manifest

__all__ = ["ManifestError", "read_manifest"]
