// gravatar-url: the avatar URL that npm's gravatar (pinned in package.json) makes with its cdn option,
// for tests/stack/test_clients.py.   node gravatar-url.js CDN EMAIL [OPTIONS-JSON]
'use strict';
const gravatar = require('gravatar');

const [cdn, email, options] = process.argv.slice(2);
if (!cdn || !email) {
  process.stderr.write('usage: node gravatar-url.js CDN EMAIL [OPTIONS-JSON]\n');
  process.exit(2);
}
process.stdout.write(gravatar.url(email, Object.assign({ cdn }, JSON.parse(options || '{}'))) + '\n');
