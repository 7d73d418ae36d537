"""HTTP/3 and the TLS group of the converged host, seen by Debian 13's curl and openssl in a container
on the scenario's network: Debian 13 serves the 302 over HTTP/3,
announces it in Alt-Svc, listens for QUIC on UDP 443 and negotiates X25519MLKEM768; Debian 12 does
none of it and negotiates X25519. A classic client (this machine's OpenSSL 3.0) gets X25519 from both."""
import probes

ALT_SVC = 'h3=":443"; ma=86400'


def test_http3_answers_302_on_debian_13_only(addr, network, modern, server_ca):
    got = probes.h3_get(network, server_ca, addr)
    print(f"curl --http3-only GET / -> {got!r}")
    if modern:
        assert got == "302 3"
    else:
        assert got != "302 3"


def test_alt_svc_names_http3_on_443_on_debian_13_only(addr, modern, server_ca):
    alt = probes.alt_svc(addr, server_ca)
    print(f"Alt-Svc: {alt!r}")
    assert alt == (ALT_SVC if modern else None)


def test_quic_listens_on_udp_443_per_address_on_debian_13_only(host, modern):
    udp = probes.udp_443(host)
    print(f"UDP listeners on 443: {udp}")
    assert udp == (probes.QUIC_LISTENERS if modern else [])


def test_debian_13_openssl_offering_x25519mlkem768_gets_it_on_debian_13_else_x25519(
        addr, network, modern, server_ca):
    group = probes.tls_group(network, server_ca, addr, "X25519MLKEM768:X25519")
    print(f"Debian 13's openssl offering X25519MLKEM768:X25519 -> {group!r}")
    assert group == ("X25519MLKEM768" if modern else "X25519")


def test_classic_openssl_client_still_connects_with_x25519(addr):
    group = probes.classic_group(addr)
    print(f"this machine's OpenSSL {probes.openssl_version()} -> {group!r}")
    assert group == "X25519"
