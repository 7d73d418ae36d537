# What a host's Nginx already has, read from its `nginx -T` (run on the control machine):
#
#   DUMP | fox_avatar.deploy.nginx_host(OURS, QUIC_PORT[, QUIC_ADDRESSES])
#
# DUMP: the standard output of `nginx -T` (every file Nginx read, each after a line
# "# configuration file PATH:"). OURS: the paths that are fox_avatar_nginx's (a path, or a directory
# ending in "/": every file under it); everything else is the host's own. QUIC_PORT, QUIC_ADDRESSES: the
# port and addresses of our QUIC listeners (default: any address). The files are read in the order Nginx reads them (each include expanded where it
# stands), so "first server for an address and port" is Nginx's own default-server rule. Returns
#   loaded           True when at least one server block comes from OURS
#   quic_reuseport   ["PATH: listen ..."] the host's `listen ... quic ... reuseport` on QUIC_PORT at one
#                    of QUIC_ADDRESSES (Nginx takes the option once per address and port)
#   map_hash         {"map_hash_max_size": {"value": "4096", "file": PATH}, ...} the host's own
#                    http-level map_hash_* directives
#   maps             [PATH, ...] the host's files with an http-level map (the first map Nginx reads
#                    fixes the map hash sizes: a map_hash_* after it is refused as a duplicate)
#   ours_default     ["*:443", ...] the addresses and ports (TCP; "quic" ones suffixed " quic") where a
#                    server of OURS is the default server (marked default_server, or the first) while a
#                    server of the host listens there too: names the host serves today would be ours
# Documentation: nginx_host.yml beside this file (ansible-doc -t filter fox_avatar.deploy.nginx_host).
import fnmatch
import posixpath
import re

from ansible.errors import AnsibleFilterError

_HEADER = re.compile(r"^# configuration file (.+):$")


def _files(dump):
    """{path: text} in the dump's order (the first is the main file)."""
    files, path, lines = {}, None, []
    for line in str(dump).splitlines():
        m = _HEADER.match(line)
        if m:
            if path is not None:
                files[path] = "\n".join(lines)
            path, lines = m[1], []
        elif path is not None:
            lines.append(line)
    if path is not None:
        files[path] = "\n".join(lines)
    return files


def _tokens(text):
    """Nginx's tokens: words (quotes removed), and ';', '{', '}' on their own; comments dropped."""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif c in ";{}":
            yield c
            i += 1
        elif c in "\"'":
            j, word = i + 1, []
            while j < n and text[j] != c:
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                word.append(text[j])
                j += 1
            yield "".join(word)
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in ";{}":
                j += 1
            yield text[i:j]
            i = j


def _parse(tokens, path):
    """[(name, args, children or None, path)] of one file's tokens."""
    stack, current, words = [], [], []
    for tok in tokens:
        if tok == ";":
            if words:
                current.append((words[0], words[1:], None, path))
            words = []
        elif tok == "{":
            block = []
            current.append((words[0] if words else "", words[1:], block, path))
            stack.append(current)
            current, words = block, []
        elif tok == "}":
            words = []
            if stack:
                current = stack.pop()
        else:
            words.append(tok)
    return current


def _expand(directives, files, prefix, seen):
    """The directives with every include replaced by the files it names (sorted, as Nginx's glob)."""
    out = []
    for name, args, children, path in directives:
        if name == "include" and children is None and args:
            pattern = args[0] if args[0].startswith("/") else posixpath.join(prefix, args[0])
            for inc in sorted(p for p in files if fnmatch.fnmatchcase(p, pattern)):
                if inc in seen:
                    continue
                out.extend(_expand(_parse(_tokens(files[inc]), inc), files, prefix, seen | {inc}))
        elif children is not None:
            out.append((name, args, _expand(children, files, prefix, seen), path))
        else:
            out.append((name, args, None, path))
    return out


def _listen(args):
    """(address, port, kind, params) of a listen directive; address "*" for every IPv4 one."""
    where, params = (args[0] if args else "80"), args[1:]
    if where.startswith("unix:"):
        return where, "", "tcp", params
    if re.fullmatch(r"[0-9]+", where):
        addr, port = "*", where
    elif where.startswith("["):
        addr, _, rest = where.partition("]")
        addr, port = addr + "]", rest.lstrip(":") or "80"
    elif ":" in where:
        addr, port = where.rsplit(":", 1)
    else:
        addr, port = where, "80"
    if addr == "0.0.0.0":
        addr = "*"
    return addr, port, ("quic" if "quic" in params else "tcp"), params


def _mine(path, ours):
    return any(path == o or (o.endswith("/") and path.startswith(o)) for o in ours)


def nginx_host(dump, ours, quic_port=443, quic_addresses=None):
    files = _files(dump)
    if not files:
        raise AnsibleFilterError("nginx_host: no '# configuration file PATH:' line in the input (not nginx -T's output)")
    ours = [str(o) for o in (ours or [])]
    wanted = None if quic_addresses is None else {_listen([f"{a}:{quic_port}"])[0] for a in quic_addresses}
    main = next(iter(files))
    tree = _expand(_parse(_tokens(files[main]), main), files, posixpath.dirname(main), {main})
    result = {"loaded": False, "quic_reuseport": [], "map_hash": {}, "maps": [], "ours_default": []}
    groups = {}   # "addr:port[ quic]" -> [(is_ours, default_server)] in Nginx's order
    for name, _args, children, _path in tree:
        if name != "http" or children is None:
            continue
        for dname, dargs, dchildren, dpath in children:
            if dname.startswith("map_hash_") and dchildren is None and not _mine(dpath, ours):
                result["map_hash"][dname] = {"value": dargs[0] if dargs else "", "file": dpath}
            if dname == "map" and dchildren is not None and not _mine(dpath, ours) and dpath not in result["maps"]:
                result["maps"].append(dpath)
            if dname != "server" or dchildren is None:
                continue
            mine = _mine(dpath, ours)
            result["loaded"] = result["loaded"] or mine
            listens = [(a, p) for n, a, c, p in dchildren if n == "listen" and c is None] or [(["80"], dpath)]
            for largs, lpath in listens:
                addr, port, kind, params = _listen(largs)
                key = f"{addr}:{port}" + (" quic" if kind == "quic" else "")
                groups.setdefault(key, []).append((mine, "default_server" in params or "default" in params))
                if (kind == "quic" and "reuseport" in params and str(port) == str(quic_port)
                        and (wanted is None or addr in wanted) and not _mine(lpath, ours)):
                    result["quic_reuseport"].append(f"{lpath}: listen {' '.join(largs)}")
    for key, servers in groups.items():
        marked = [s for s in servers if s[1]]
        default = (marked or servers)[0]
        if default[0] and any(not s[0] for s in servers):
            result["ours_default"].append(key)
    return result


class FilterModule:
    def filters(self):
        return {"nginx_host": nginx_host}
