# The collection's lookup fox_avatar.deploy.port: a default port of fox-avatar's parts, read from
# ports.env, their one owner (the repository's root; the collection carries it at its own root, a
# copy in the built tarball). The reader is tools/ports.py's (plugin_utils/ports.py links to it).
from pathlib import Path

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible_collections.fox_avatar.deploy.plugins.plugin_utils.ports import read

DOCUMENTATION = r"""
name: port
author: fox-avatar
short_description: A default port of fox-avatar's parts, from ports.env
description:
  - Returns the port that the collection's C(ports.env) gives each name, as an integer. C(ports.env)
    is the one owner of every default port (the sidecar's, Nginx's status and fallback feed, the
    exporters', Prometheus's); the roles' defaults read it through this lookup.
options:
  _terms:
    description: Names of C(ports.env), such as C(APP_PORT) or C(MTAIL_PORT).
    required: true
"""

EXAMPLES = r"""
- name: The sidecar's default port
  ansible.builtin.debug:
    msg: "{{ lookup('fox_avatar.deploy.port', 'APP_PORT') }}"
"""

RETURN = r"""
_raw:
  description: The ports, one per name.
  type: list
  elements: int
"""

OWNER = Path(__file__).resolve().parents[2] / "ports.env"


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        try:
            ports = read(OWNER)
        except (OSError, ValueError) as error:
            raise AnsibleLookupError(f"fox_avatar.deploy.port: {error}") from error
        missing = [term for term in terms if term not in ports]
        if missing:
            raise AnsibleLookupError(f"fox_avatar.deploy.port: {', '.join(missing)} not in ports.env ({', '.join(ports)})")
        return [ports[term] for term in terms]
