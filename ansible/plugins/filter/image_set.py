# The image set and the list of people for the roles, read on the control machine by their owner,
# imageset/ (linked into plugins/plugin_utils/imageset; the collection's build copies it in).
#   SRC | fox_avatar.deploy.image_set_problem         '' for a complete set, else why not
#   SRC | fox_avatar.deploy.image_set_files           what to copy: every file the manifest lists, then manifest.tsv
#   SRC | fox_avatar.deploy.image_set                 the Nginx template's avatar_image_set (its maps, as data)
#   SRC | fox_avatar.deploy.image_set_drawing         its identities' directory, i/HASH ('' for a set without)
#   FILE | fox_avatar.deploy.people_problem(SRC)      '' for no file or a list the set SRC can show, else why not
import os

from ansible.errors import AnsibleFilterError
from ansible_collections.fox_avatar.deploy.plugins.plugin_utils.imageset.contract import MANIFEST
from ansible_collections.fox_avatar.deploy.plugins.plugin_utils.imageset.manifest import ManifestError, read_manifest
from ansible_collections.fox_avatar.deploy.plugins.plugin_utils.imageset.nginx import template_data
from ansible_collections.fox_avatar.deploy.plugins.plugin_utils.imageset.people import PeopleError, read_people


def _read(src):
    try:
        return read_manifest(str(src))
    except ManifestError as e:
        raise AnsibleFilterError(f"{src}: not a complete image set: {e}") from None


def image_set_problem(src):
    try:
        read_manifest(str(src))
    except ManifestError as e:
        return f"{src}: {e} (make one with `make images`, or `make images SRC=your-pictures OUT=DIR`)"
    return ""


def image_set_files(src):
    return _read(src).paths() + [MANIFEST]


def image_set(src):
    return template_data(_read(src))


def image_set_drawing(src):
    vs = _read(src).variants
    return vs.directory if vs else ""


def _people(path, src):
    if not path:
        return {}
    try:
        with open(os.path.expanduser(path), encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeError) as e:
        raise PeopleError(f"{path}: {getattr(e, 'strerror', None) or e}") from None
    return read_people(text, _read(src), str(path))


def people_problem(path, src):
    try:
        _people(path, src)
    except PeopleError as e:
        return f"{e} (make it with `make people LIST=team.txt`)"
    return ""


class FilterModule:
    def filters(self):
        return {"image_set": image_set, "image_set_files": image_set_files, "image_set_problem": image_set_problem,
                "image_set_drawing": image_set_drawing, "people_problem": people_problem}
