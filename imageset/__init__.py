"""fox-avatar's image set, on the build side: this package is its one owner.

The set is a directory (images/ for the fox set): manifest.tsv and the files it
lists. This package writes it, reads and checks it, and derives everything else from it:

    contract.py   every fixed fact of the contract, once (file name, buckets, Gravatar's range,
                  bounds; a new set's ladder, formats and defaults)
    buckets.py    which picture each of the key buckets gets (rendezvous hashing)
    writer.py     write_set: name rendered files by content, write manifest.tsv
    manifest.py   read_manifest / parse_manifest: the reader and its checks (Manifest, ManifestError)
    nginx.py      template_data: the Nginx template's maps, as data
    files.py      ship_list, copy_set, swap_in: the files of a set
    __main__.py   python3 -m imageset write|check|copy|swap-in|people

The other readers: the Java sidecar reads manifest.tsv once at start (ManifestReader.java: the same
checks, order and words; both run tests/images/manifest-cases.txt), and the
Ansible collection's filters (ansible/plugins/filter/image_set.py) run this package on the control
machine (ansible/plugins/plugin_utils/imageset/ links to the modules they import; the collection's
build copies them in). The pictures themselves are drawn or converted by images/ (draw.py, pictures.py).
Standard library only, within Debian's python3-minimal (no shutil: the compose builds run it
there); imports are relative, so the package works under either name.
"""
from .contract import MANIFEST
from .manifest import Entry, Format, Manifest, ManifestError, parse_manifest, read_manifest

__all__ = ["MANIFEST", "Entry", "Format", "Manifest", "ManifestError", "parse_manifest", "read_manifest"]
