# Addresses as Nginx's set_real_ip_from, allow and deny take them (run on the control machine):
#
#   LIST | fox_avatar.deploy.not_networks
#
# The items of LIST that are not an IPv4 or IPv6 address, nor a network in CIDR form (host bits
# allowed, as Nginx allows them: 10.1.2.3/8); the pre-flight names them. Documentation: not_networks.yml.
import ipaddress


def not_networks(items):
    bad = []
    for item in items or []:
        try:
            ipaddress.ip_network(str(item), strict=False)
        except ValueError:
            bad.append(item)
        else:
            if not isinstance(item, str):
                bad.append(item)
    return bad


class FilterModule:
    def filters(self):
        return {"not_networks": not_networks}
