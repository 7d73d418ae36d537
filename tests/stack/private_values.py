"""The values the private-log tests send and then look for in every log (docs/privacy.md): a key, an
MD5 and a SHA-256 e-mail hash, a Referer, a User-Agent, X-Forwarded-For and an unknown path, each in
every form a log could write it. tests/nginx/test_private_logs.py (loopback) and
tests/compose/test_private_logs.py (compose) send them; the client's own address is each test's."""
import urllib.parse

KEY = "fox.private.key@example.org"
MD5 = "8f14e45fceea167a5a36dedd4bea2543"
SHA256 = "c2f8a1d7e3b94f60a5d2e7c1b8f09a3d4e6c2b1a0f9e8d7c6b5a4f3e2d1c0b9a"
REFERER = "https://forge.example/profile/private-referer-page"
USER_AGENT = "PrivateAgent/7.7"
FORWARDED_FOR = "203.0.113.77"
UNKNOWN = "/private-unknown-path-4c6f67"   # a 404 path can carry anything

# Every value that must stay out of the logs, in each form a log could write it.
SECRETS = {
    "key": KEY, "key URL-encoded": urllib.parse.quote(KEY, safe=""), "key's local part": "fox.private.key",
    "MD5": MD5, "MD5 upper case": MD5.upper(), "SHA-256": SHA256, "SHA-256 upper case": SHA256.upper(),
    "Referer": REFERER, "Referer's page": "private-referer-page", "User-Agent": USER_AGENT,
    "X-Forwarded-For": FORWARDED_FOR, "unknown path": UNKNOWN,
}
# What anonymous may not keep but full must: the values full writes as sent (the rest are other
# spellings of these).
FULL_KEEPS = ["key URL-encoded", "MD5", "MD5 upper case", "SHA-256", "Referer", "User-Agent", "unknown path"]
