// libravatar-url: the avatar URL that Gitea's Libravatar library (strk.kbt.io/projects/go/libravatar, the
// version Gitea pins, go.mod) makes for an e-mail address, for tests/stack/test_clients.py.
//
//	libravatar-url -dns 127.0.0.1:PORT [-fallback HOST[:PORT]] [-size N] [-http] EMAIL
//
// Federation looks up _avatars-sec._tcp.DOMAIN (or _avatars._tcp with -http) through the DNS server at
// -dns only: Go's resolver is pointed there, never at the machine's resolv.conf.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"

	"strk.kbt.io/projects/go/libravatar"
)

func main() {
	dnsServer := flag.String("dns", "", "DNS server host:port (required)")
	fallback := flag.String("fallback", "", "fallback host when the domain has no SRV record")
	size := flag.Uint("size", 0, "avatar size (0: the library's default)")
	plain := flag.Bool("http", false, "plain HTTP (_avatars._tcp) instead of HTTPS")
	flag.Parse()
	if *dnsServer == "" || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: libravatar-url -dns HOST:PORT [-fallback HOST] [-size N] [-http] EMAIL")
		os.Exit(2)
	}
	net.DefaultResolver = &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, *dnsServer)
		},
	}
	avatars := libravatar.New()
	avatars.SetUseHTTPS(!*plain)
	if *fallback != "" {
		avatars.SetFallbackHost(*fallback)
		avatars.SetSecureFallbackHost(*fallback)
	}
	avatars.SetAvatarSize(*size)
	url, err := avatars.FromEmail(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "libravatar-url:", err)
		os.Exit(1)
	}
	fmt.Println(url)
}
