package callback

import (
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/callscribe/callscribe/shared/callscribe"
)

func TestParseAllowHosts(t *testing.T) {
	got := ParseAllowHosts(" 127.0.0.1, LocalHost ,,[::1], receiver.internal., 10.0.0.0/8 ,")
	want := []string{"127.0.0.1", "localhost", "::1", "receiver.internal", "10.0.0.0/8"}
	if !slices.Equal(got, want) {
		t.Fatalf("ParseAllowHosts = %q, want %q", got, want)
	}
	if got := ParseAllowHosts(""); len(got) != 0 {
		t.Fatalf("ParseAllowHosts(\"\") = %q, want none", got)
	}
}

func TestCheckAllowHosts(t *testing.T) {
	if err := CheckAllowHosts([]string{"localhost", "127.0.0.1", "::1", "10.0.0.0/8", "fd00::/8", "a-b_c.example"}); err != nil {
		t.Fatalf("valid list refused: %v", err)
	}
	for _, bad := range []string{"localhost:8080", "http://localhost", "10.0.0.0/33", "*.example.com", "bücher.de", "127.1"} {
		if err := CheckAllowHosts([]string{"localhost", bad}); err == nil || !strings.Contains(err.Error(), strconv.Quote(bad)) {
			t.Errorf("CheckAllowHosts(%q) = %v, want an error naming it", bad, err)
		}
	}
}

func TestAllowListMatching(t *testing.T) {
	al := compileAllowList(ParseAllowHosts("LocalHost,127.0.0.1,10.1.0.0/16,::ffff:192.168.0.0/112,[fd00::1]"))
	for host, want := range map[string]bool{
		"localhost":        true,
		"LOCALHOST.":       true,
		"localhost.evil":   false,
		"evil-localhost":   false,
		"127.0.0.1":        true,
		"127.0.0.2":        false,
		"::ffff:127.0.0.1": true, // same address, mapped form
		"10.1.200.3":       true,
		"10.2.0.1":         false,
		"192.168.7.7":      true, // mapped CIDR entry applies to the IPv4 range
		"fd00::1":          true,
		"fd00::2":          false,
	} {
		if got := al.allowsHost(host); got != want {
			t.Errorf("allowsHost(%q) = %v, want %v", host, got, want)
		}
	}
	// A name entry does not make its addresses allowed for other names.
	if compileAllowList([]string{"localhost"}).allowsIP(netip.MustParseAddr("127.0.0.1")) {
		t.Error("a hostname entry allowed an IP")
	}
}

func TestRefusedReason(t *testing.T) {
	refused := []string{
		"127.0.0.1", "127.255.255.254", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255",
		"192.168.1.1", "169.254.169.254", "169.254.0.1", "100.64.0.1", "100.127.255.255", "0.0.0.0",
		"0.1.2.3", "224.0.0.1", "239.255.255.250", "255.255.255.255", "240.0.0.1", "198.18.0.1", "192.0.0.170",
		"::", "::1", "fe80::1", "fe80::1%eth0", "febf::1", "fc00::1", "fd00:ec2::254", "ff02::1", "fec0::1",
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "::ffff:0.0.0.0",
		"::127.0.0.1",        // IPv4-compatible
		"64:ff9b::a9fe:a9fe", // NAT64 of 169.254.169.254
		"64:ff9b::7f00:1",    // NAT64 of 127.0.0.1
		"64:ff9b:1::1",       // local-use NAT64
		"2002:7f00:1::",      // 6to4 of 127.0.0.1
		"2002:a00:1::1",      // 6to4 of 10.0.0.1
	}
	public := []string{
		"8.8.8.8", "1.1.1.1", "172.32.0.1", "172.15.255.255", "100.128.0.1", "100.63.255.255",
		"169.253.255.255", "192.169.0.1", "11.0.0.1", "2606:4700:4700::1111", "2a00:1450:4001::200e",
		"::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
	}
	for _, s := range refused {
		if why := refusedReason(netip.MustParseAddr(s)); why == "" {
			t.Errorf("%s judged public, want refused", s)
		}
	}
	for _, s := range public {
		if why := refusedReason(netip.MustParseAddr(s)); why != "" {
			t.Errorf("%s refused as %s, want public", s, why)
		}
	}
	if refusedReason(netip.Addr{}) == "" {
		t.Error("the zero Addr judged public")
	}
}

func TestValidateCallback(t *testing.T) {
	allow := ParseAllowHosts("127.0.0.1,localhost,10.0.0.0/8,::1")
	ok := func(u string) callscribe.Callback { return callscribe.Callback{URL: u, CallUUID: "call-1"} }
	long := func(n int) string { return strings.Repeat("a", n) }
	urlOfLen := func(n int) string {
		const prefix = "https://example.com/"
		return prefix + long(n-len(prefix))
	}

	for _, tc := range []struct {
		name  string
		cb    callscribe.Callback
		allow []string
		msg   string // substring of the refusal; "" means valid
	}{
		{"https", ok("https://hooks.example.com/tags?x=1"), nil, ""},
		{"https with port", ok("https://hooks.example.com:8443/t"), nil, ""},
		{"https public IP", ok("https://8.8.8.8/t"), nil, ""},
		{"https public IPv6", ok("https://[2606:4700:4700::1111]/t"), nil, ""},
		{"upper-case scheme", ok("HTTPS://example.com/"), nil, ""},
		{"trailing dot", ok("https://example.com./hook"), nil, ""},
		{"url at limit", ok(urlOfLen(MaxURLLength)), nil, ""},
		{"apikey and uuid at limits", callscribe.Callback{URL: "https://example.com", APIKey: long(MaxAPIKeyLength), CallUUID: long(MaxCallUUIDLength)}, nil, ""},
		{"apikey with inner space", callscribe.Callback{URL: "https://example.com", APIKey: "Key abc/+=", CallUUID: "c"}, nil, ""},
		{"call_uuid unicode", callscribe.Callback{URL: "https://example.com", CallUUID: "appel-été-1"}, nil, ""},
		{"http allowed IP", ok("http://127.0.0.1:8080/hook"), allow, ""},
		{"http allowed name", ok("http://localhost:9/hook"), allow, ""},
		{"http allowed CIDR", ok("http://10.2.3.4/hook"), allow, ""},
		{"http allowed IPv6", ok("http://[::1]:8080/hook"), allow, ""},
		{"https loopback allowed", ok("https://127.0.0.1/hook"), allow, ""},

		{"empty url", ok(""), nil, "callback_url is required"},
		{"too long", ok(urlOfLen(MaxURLLength + 1)), nil, "longer than 2048"},
		{"unparsable", ok("https://exa mple.com/%zz"), nil, "not a valid URL"},
		{"control char", ok("https://example.com/\n"), nil, "not a valid URL"},
		{"relative", ok("/hook"), nil, "absolute URL"},
		{"no scheme", ok("example.com/hook"), nil, "absolute URL"},
		{"opaque", ok("https:example.com"), nil, "absolute URL"},
		{"http public", ok("http://example.com/hook"), nil, "must use https"},
		{"http not in list", ok("http://127.0.0.2/hook"), allow, "must use https"},
		{"ftp", ok("ftp://example.com/x"), nil, "must use https"},
		{"javascript", ok("javascript://example.com/%0aalert(1)"), nil, "must use https"},
		{"userinfo", ok("https://user:pw@example.com/"), nil, "credentials"},
		{"user only", ok("https://user@example.com/"), nil, "credentials"},
		{"no host", ok("https:///hook"), nil, "must include a host"},
		{"port only", ok("https://:443/hook"), nil, "must include a host"},
		{"port zero", ok("https://example.com:0/"), nil, "invalid port"},
		{"port too big", ok("https://example.com:70000/"), nil, "invalid port"},
		{"empty port", ok("https://example.com:/"), nil, "invalid port"},
		{"loopback", ok("https://127.0.0.1/hook"), nil, "loopback"},
		{"loopback mapped", ok("https://[::ffff:127.0.0.1]/hook"), nil, "loopback"},
		{"metadata", ok("https://169.254.169.254/latest/meta-data/"), nil, "link-local"},
		{"private 10", ok("https://10.0.0.5/"), nil, "private"},
		{"private 192.168", ok("https://192.168.1.10/"), nil, "private"},
		{"cgnat", ok("https://100.64.1.1/"), nil, "carrier-grade NAT"},
		{"unspecified", ok("https://0.0.0.0/"), nil, "unspecified"},
		{"ipv6 loopback", ok("https://[::1]/"), nil, "loopback"},
		{"ipv6 unique-local", ok("https://[fd00::1]/"), nil, "unique-local"},
		{"ipv6 zone", ok("https://[fe80::1%25eth0]/"), allow, "zone"},
		{"multicast", ok("https://224.0.0.1/"), nil, "multicast"},
		{"decimal IP", ok("https://2130706433/"), nil, "not a valid hostname"},
		{"short IP", ok("https://127.1/"), nil, "not a valid hostname"},
		{"hex IP", ok("https://0x7f.0.0.1/"), nil, "not a valid hostname"},
		{"non-ASCII host", ok("https://bücher.example/"), nil, "not a valid hostname"},
		{"bad label", ok("https://-bad.example.com/"), nil, "not a valid hostname"},
		{"apikey too long", callscribe.Callback{URL: "https://example.com", APIKey: long(MaxAPIKeyLength + 1), CallUUID: "c"}, nil, "callback_apikey is longer"},
		{"apikey CRLF", callscribe.Callback{URL: "https://example.com", APIKey: "k\r\nX-Evil: 1", CallUUID: "c"}, nil, "printable ASCII"},
		{"apikey non-ASCII", callscribe.Callback{URL: "https://example.com", APIKey: "clé", CallUUID: "c"}, nil, "printable ASCII"},
		{"apikey padded", callscribe.Callback{URL: "https://example.com", APIKey: " k", CallUUID: "c"}, nil, "spaces"},
		{"call_uuid empty", callscribe.Callback{URL: "https://example.com"}, nil, "call_uuid is required"},
		{"call_uuid too long", callscribe.Callback{URL: "https://example.com", CallUUID: long(MaxCallUUIDLength + 1)}, nil, "call_uuid is longer"},
		{"call_uuid control", callscribe.Callback{URL: "https://example.com", CallUUID: "a\tb"}, nil, "printable"},
		{"call_uuid bad utf8", callscribe.Callback{URL: "https://example.com", CallUUID: "a\xffb"}, nil, "UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateCallback(tc.cb, tc.allow)
			if tc.msg == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want refusal containing %q", tc.msg)
			}
			if !callscribe.IsCode(err, callscribe.CodeInvalidCallback) {
				t.Fatalf("code = %s, want %s (%v)", callscribe.ErrorCode(err), callscribe.CodeInvalidCallback, err)
			}
			if msg := callscribe.ErrorMessage(err); !strings.Contains(msg, tc.msg) {
				t.Fatalf("message %q does not contain %q", msg, tc.msg)
			}
		})
	}
}

func TestPolicyValidateUsesItsAllowList(t *testing.T) {
	cb := callscribe.Callback{URL: "http://127.0.0.1:8080/hook", CallUUID: "c"}
	if err := (Policy{}).Validate(cb); err == nil {
		t.Fatal("empty policy accepted http to loopback")
	}
	if err := (Policy{AllowHosts: []string{"127.0.0.1"}}).Validate(cb); err != nil {
		t.Fatalf("allowing policy refused: %v", err)
	}
}

// FuzzValidateCallback checks that no input panics and that whatever is
// accepted really satisfies the documented rules.
func FuzzValidateCallback(f *testing.F) {
	for _, s := range []string{
		"https://example.com/hook", "http://127.0.0.1:8080/x", "https://[::1]/", "https://169.254.169.254/",
		"https://u:p@example.com", "https://[fe80::1%25eth0]/", "https://2130706433/", "http://localhost/",
		"https://example.com:0/", "//example.com", "https:example.com", "https://%65xample.com/",
	} {
		f.Add(s, "key", "call-1")
	}
	allow := []string{"127.0.0.1", "localhost"}
	al := compileAllowList(allow)
	f.Fuzz(func(t *testing.T, rawURL, apikey, callUUID string) {
		err := ValidateCallback(callscribe.Callback{URL: rawURL, APIKey: apikey, CallUUID: callUUID}, allow)
		if err != nil {
			if !callscribe.IsCode(err, callscribe.CodeInvalidCallback) {
				t.Fatalf("refusal with code %s: %v", callscribe.ErrorCode(err), err)
			}
			return
		}
		u, perr := url.Parse(rawURL)
		if perr != nil {
			t.Fatalf("accepted unparsable URL %q", rawURL)
		}
		if len(rawURL) > MaxURLLength || len(apikey) > MaxAPIKeyLength || callUUID == "" || len(callUUID) > MaxCallUUIDLength {
			t.Fatalf("accepted over-limit fields %q %q %q", rawURL, apikey, callUUID)
		}
		if u.User != nil || u.Hostname() == "" {
			t.Fatalf("accepted %q with credentials or without host", rawURL)
		}
		switch u.Scheme {
		case "https":
		case "http":
			if !al.allowsHost(u.Hostname()) {
				t.Fatalf("accepted http for a host not in the allow list: %q", rawURL)
			}
		default:
			t.Fatalf("accepted scheme %q", u.Scheme)
		}
		if a, err := netip.ParseAddr(u.Hostname()); err == nil && refusedReason(a) != "" && !al.allowsIP(a) {
			t.Fatalf("accepted non-public literal %q", rawURL)
		}
		if strings.ContainsAny(apikey, "\r\n\x00") {
			t.Fatalf("accepted apikey with control characters %q", apikey)
		}
	})
}
