# The image set, for the roles: fox-avatar's image-set owner (imageset, linked into
# this collection as plugins/plugin_utils/imageset; the collection's build copies the files in) run on
# the control machine. The roles never read manifest.tsv themselves.
#
#   SRC | fox_avatar.deploy.image_set_problem   '' for a complete, valid set; else one line saying why
#   SRC | fox_avatar.deploy.image_set_files     what to ship: manifest.tsv, then every file it lists
#   SRC | fox_avatar.deploy.image_set           the Nginx template's avatar_image_set (its maps, as data)
#
# SRC: an images directory on the control machine (made by `make images`). image_set and
# image_set_files fail on a bad set; the roles' pre-flight checks image_set_problem first and names
# the setting (fox_avatar_common/tasks/assert_image_set.yml).
from ansible.errors import AnsibleFilterError
from ansible_collections.fox_avatar.deploy.plugins.plugin_utils.imageset.files import ship_list
from ansible_collections.fox_avatar.deploy.plugins.plugin_utils.imageset.manifest import ManifestError, read_manifest
from ansible_collections.fox_avatar.deploy.plugins.plugin_utils.imageset.nginx import template_data


def _read(src):
    try:
        return read_manifest(str(src))
    except ManifestError as e:
        raise AnsibleFilterError(f"{src}: not a complete image set: {e}") from None


def image_set_problem(src):
    try:
        read_manifest(str(src))
    except ManifestError as e:
        return f"{e} (make one with `make images`, or `make images SRC=your-pictures OUT=DIR`)"
    return ""


def image_set_files(src):
    return ship_list(_read(src))


def image_set(src):
    return template_data(_read(src))


class FilterModule:
    def filters(self):
        return {"image_set": image_set, "image_set_files": image_set_files, "image_set_problem": image_set_problem}
