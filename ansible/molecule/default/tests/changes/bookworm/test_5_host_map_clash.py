"""The owner adds a map of their own (conf.d/, read before our site): Nginx fixes the map hash sizes
at the first map it reads, so ours are refused as "duplicate" (the owner's `nginx -t` fails, and
they cannot reload). The playbook's pre-flight reads the host's own configuration (nginx -T without
our site) and refuses, before anything changes, with one line naming fox_avatar_nginx_map_hash and
the owner's file; the owner then sets the sizes in nginx.conf as that line says, and test_6's run
(fox_avatar_nginx_map_hash false) goes through and reloads Nginx with both."""
import foxmol
import pytest

MAP = "/etc/nginx/conf.d/owner-upgrade.conf"
KEEP = {"fox_avatar_nginx_images_max_age": 3600}


@pytest.fixture(scope="module")
def refused(host_name, proxy_only):
    foxmol.host_exec(host_name, "sh", "-c", f"""printf '%s\\n' 'map $http_upgrade $connection_upgrade {{' \
        '    default upgrade;' "    '' close;" '}}' >{MAP}""")
    clash = foxmol.host_exec(host_name, "sh", "-c", "nginx -t 2>&1", check=False)
    assert "is duplicate" in clash, clash
    live, pid = foxmol.host_exec(host_name, "readlink", "/etc/nginx/fox-avatar"), foxmol.nginx_pid(host_name)
    run = foxmol.playbook("host-map-clash", env=proxy_only, extra_vars=KEEP)
    return run, live, pid


def test_the_pre_flight_refuses_in_one_line_naming_the_setting_and_the_owners_file(refused):
    run = refused[0]
    errors = [line for line in run.text.splitlines() if "fox_avatar_nginx_map_hash (" in line]
    assert run.rc != 0 and errors, run.excerpt()
    assert MAP in errors[0] and "fox_avatar_nginx_map_hash: false" in errors[0], errors
    assert "PLAY [Java service]" not in run.text and "PLAY [Nginx front end" not in run.text, run.excerpt()


def test_nothing_changed(refused, host_name):
    _, live, pid = refused
    assert foxmol.host_exec(host_name, "readlink", "/etc/nginx/fox-avatar") == live
    assert foxmol.nginx_pid(host_name) == pid


def test_the_owner_sets_the_sizes_in_nginx_conf_as_told(refused, host_name):
    # (nginx -t still refuses them beside ours, until test_6's run with fox_avatar_nginx_map_hash false)
    foxmol.host_exec(host_name, "sed", "-i",
                     r"s/^http {$/http {\n\tmap_hash_max_size 4096;\n\tmap_hash_bucket_size 128;/",
                     "/etc/nginx/nginx.conf")
    assert "map_hash_bucket_size 128;" in foxmol.host_exec(host_name, "cat", "/etc/nginx/nginx.conf")
