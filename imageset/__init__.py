"""fox-avatar's image set, on the build side: this package is its one owner. It writes a set's
manifest.tsv, reads and checks it, and derives everything else from it; its modules and readers:
imageset/README.md. Standard library only, within Debian's python3-minimal (no shutil: the compose
builds run it there); imports are relative, so the package works under either name (the Ansible
collection carries it as plugin_utils/imageset).
"""
from .contract import MANIFEST
from .manifest import Entry, Format, Manifest, ManifestError, parse_manifest, read_manifest

__all__ = ["MANIFEST", "Entry", "Format", "Manifest", "ManifestError", "parse_manifest", "read_manifest"]
