package callback

import (
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/callscribe/callscribe/shared/callscribe"
)

// Limits on caller-supplied callback fields.
const (
	MaxURLLength      = 2048
	MaxAPIKeyLength   = 512
	MaxCallUUIDLength = 128
)

// Policy is the operator's callback configuration (CALLBACK_ALLOW_HOSTS).
type Policy struct {
	// AllowHosts lists hosts that may be reached over plain http and may be
	// non-public addresses; see ParseAllowHosts for the entry forms.
	AllowHosts []string
}

// Validate is ValidateCallback with the policy's allow list.
func (p Policy) Validate(cb callscribe.Callback) error { return ValidateCallback(cb, p.AllowHosts) }

// ParseAllowHosts splits CALLBACK_ALLOW_HOSTS. The value is a comma-separated
// list; each entry is one of:
//
//   - a hostname ("localhost", "receiver.internal"): matched exactly and
//     case-insensitively against the URL's host (no wildcards, no ports). A URL
//     with that host may use http and may resolve to any address, because the
//     operator vouches for the name.
//   - an IP address ("127.0.0.1", "::1", "[::1]"): a URL whose host is that
//     literal may use http, and that address may be dialled whatever name
//     resolved to it.
//   - a CIDR prefix ("10.0.0.0/8", "fd00::/8"): the same as an IP, for every
//     address in the prefix.
//
// Entries are trimmed and lower-cased; empty entries are dropped. An entry that
// fits none of the forms (say "host:8080") matches nothing; use
// CheckAllowHosts to reject such a configuration at startup.
func ParseAllowHosts(csv string) []string {
	var out []string
	for _, e := range strings.Split(csv, ",") {
		e = strings.ToLower(strings.TrimSpace(e))
		if strings.HasPrefix(e, "[") && strings.HasSuffix(e, "]") {
			e = e[1 : len(e)-1]
		}
		e = strings.TrimSuffix(e, ".")
		if e != "" {
			out = append(out, e)
		}
	}
	return out
}

// CheckAllowHosts reports the first entry that is not a hostname, IP or CIDR,
// so a typo in CALLBACK_ALLOW_HOSTS fails loudly instead of silently matching
// nothing.
func CheckAllowHosts(hosts []string) error {
	for _, h := range hosts {
		if _, ok := parseAllowEntry(h); !ok {
			return fmt.Errorf("CALLBACK_ALLOW_HOSTS: %q is not a hostname, IP address or CIDR prefix", h)
		}
	}
	return nil
}

// allowList is the compiled form of an AllowHosts list.
type allowList struct {
	names    map[string]bool
	prefixes []netip.Prefix
}

type allowEntry struct {
	name   string
	prefix netip.Prefix
}

func parseAllowEntry(e string) (allowEntry, bool) {
	e = strings.TrimSuffix(strings.Trim(strings.ToLower(strings.TrimSpace(e)), "[]"), ".")
	if p, err := netip.ParsePrefix(e); err == nil {
		if p.Addr().Is4In6() {
			// ::ffff:10.0.0.0/104 means 10.0.0.0/8; dialled addresses are unmapped.
			bits := p.Bits() - 96
			if bits < 0 {
				return allowEntry{}, false
			}
			p = netip.PrefixFrom(p.Addr().Unmap(), bits)
		}
		return allowEntry{prefix: p.Masked()}, true
	}
	if a, err := netip.ParseAddr(e); err == nil {
		a = a.WithZone("").Unmap()
		return allowEntry{prefix: netip.PrefixFrom(a, a.BitLen())}, true
	}
	if validHostname(e) {
		return allowEntry{name: e}, true
	}
	return allowEntry{}, false
}

func compileAllowList(hosts []string) allowList {
	al := allowList{names: map[string]bool{}}
	for _, h := range hosts {
		e, ok := parseAllowEntry(h)
		switch {
		case !ok:
		case e.name != "":
			al.names[e.name] = true
		default:
			al.prefixes = append(al.prefixes, e.prefix)
		}
	}
	return al
}

// allowsHost reports whether a URL host (as url.URL.Hostname returns it, or
// the host part of a dial address) is itself in the list: a listed name, or a
// literal IP inside a listed IP/CIDR. It decides whether http is permitted and
// whether the dial-time address check is skipped for a listed name.
func (al allowList) allowsHost(host string) bool {
	if a, ok := parseIPHost(host); ok {
		return al.allowsIP(a)
	}
	return al.names[normalizeHostname(host)]
}

// allowsIP reports whether an address lies inside a listed IP or CIDR.
func (al allowList) allowsIP(a netip.Addr) bool {
	a = a.WithZone("").Unmap()
	for _, p := range al.prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func normalizeHostname(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// parseIPHost parses a URL host that is an IP literal (brackets already
// removed by url.URL.Hostname, a zone allowed).
func parseIPHost(host string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return a, err == nil
}

// validHostname accepts ASCII DNS names: labels of letters, digits, '-' and '_'
// (underscores exist in real DNS), 1–63 bytes each, 253 in all, an optional
// trailing dot, and a last label that is not all digits. That last rule refuses
// numeric shorthands like "2130706433", "127.1" or "0x7f.1", which some
// resolvers (getaddrinfo) turn into 127.0.0.1 and which are never real names.
func validHostname(h string) bool {
	h = strings.TrimSuffix(h, ".")
	if h == "" || len(h) > 253 {
		return false
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	last := strings.ToLower(labels[len(labels)-1])
	if strings.HasPrefix(last, "0x") {
		return false
	}
	if _, err := strconv.ParseUint(last, 10, 64); err == nil {
		return false
	}
	return true
}

// ValidateCallback checks caller-supplied callback fields for POST /v1/tag.
// Every refusal is a 400 INVALID_CALLBACK *callscribe.Error naming the field.
//
// callback_url must be an absolute https URL (http only when its host is in
// allow), at most MaxURLLength bytes, with a host, no credentials and a valid
// port; an IP literal host must be public unless allowed. Hostnames are not
// resolved here — DNS answers can change — the Notifier checks the address it
// actually dials. callback_apikey (optional) must be at most MaxAPIKeyLength
// bytes of printable ASCII without surrounding spaces, since it becomes a
// header value. call_uuid must be non-empty, at most MaxCallUUIDLength bytes of
// printable UTF-8.
func ValidateCallback(cb callscribe.Callback, allow []string) error {
	if _, err := checkURL(cb.URL, compileAllowList(allow), true); err != nil {
		return err
	}
	if err := checkAPIKey(cb.APIKey); err != nil {
		return err
	}
	return checkCallUUID(cb.CallUUID)
}

func invalid(format string, args ...any) error {
	return callscribe.Errorf(callscribe.CodeInvalidCallback, format, args...)
}

// checkURL holds the URL rules shared by ValidateCallback and Notifier.Deliver
// (which re-checks because CALLBACK_ALLOW_HOSTS may have changed since the job
// was accepted). checkIP judges a literal IP host here; Deliver leaves that to
// its dialer.
func checkURL(raw string, al allowList, checkIP bool) (*url.URL, error) {
	if raw == "" {
		return nil, invalid("callback_url is required.")
	}
	if len(raw) > MaxURLLength {
		return nil, invalid("callback_url is longer than %d characters.", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, invalid("callback_url is not a valid URL.")
	}
	if !u.IsAbs() || u.Opaque != "" {
		return nil, invalid("callback_url must be an absolute URL such as https://example.com/hook.")
	}
	if u.User != nil {
		return nil, invalid("callback_url must not contain credentials; use callback_apikey.")
	}
	host := u.Hostname()
	if host == "" {
		return nil, invalid("callback_url must include a host.")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, invalid("callback_url has an invalid port.")
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return nil, invalid("callback_url has an invalid port.")
	}
	allowed := al.allowsHost(host)
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !allowed {
			return nil, invalid("callback_url must use https; http is accepted only for hosts in CALLBACK_ALLOW_HOSTS.")
		}
	default:
		return nil, invalid("callback_url must use https.")
	}
	if a, ok := parseIPHost(host); ok {
		if a.Zone() != "" {
			return nil, invalid("callback_url must not carry an IPv6 zone.")
		}
		if why := refusedReason(a); checkIP && why != "" && !allowed {
			return nil, invalid("callback_url points to a %s address, which is not allowed.", why)
		}
	} else if !validHostname(host) {
		return nil, invalid("callback_url host is not a valid hostname or IP address.")
	}
	return u, nil
}

func checkAPIKey(k string) error {
	if len(k) > MaxAPIKeyLength {
		return invalid("callback_apikey is longer than %d characters.", MaxAPIKeyLength)
	}
	for i := 0; i < len(k); i++ {
		// Visible ASCII and inner spaces only: CR/LF would split headers, and
		// anything non-ASCII is mangled by gateways.
		if c := k[i]; c < 0x20 || c > 0x7e {
			return invalid("callback_apikey may contain only printable ASCII characters.")
		}
	}
	if strings.TrimSpace(k) != k {
		return invalid("callback_apikey must not start or end with spaces.")
	}
	return nil
}

func checkCallUUID(s string) error {
	if s == "" {
		return invalid("call_uuid is required.")
	}
	if len(s) > MaxCallUUIDLength {
		return invalid("call_uuid is longer than %d characters.", MaxCallUUIDLength)
	}
	if !utf8.ValidString(s) {
		return invalid("call_uuid must be valid UTF-8.")
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return invalid("call_uuid may contain only printable characters.")
		}
	}
	return nil
}

// Address ranges refused for callbacks, with the reason reported. Besides the
// obvious loopback/private/link-local ranges this covers addresses that reach
// the local network through translation (CGNAT, NAT64, 6to4) or that no
// public receiver can have.
var (
	refusedV4 = []refusedRange{
		{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
		{netip.MustParsePrefix("10.0.0.0/8"), "private"},
		{netip.MustParsePrefix("100.64.0.0/10"), "carrier-grade NAT"},
		{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
		{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
		{netip.MustParsePrefix("172.16.0.0/12"), "private"},
		{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},
		{netip.MustParsePrefix("192.168.0.0/16"), "private"},
		{netip.MustParsePrefix("198.18.0.0/15"), "reserved"},
		{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
		{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // includes 255.255.255.255
	}
	refusedV6 = []refusedRange{
		{netip.MustParsePrefix("::/128"), "unspecified"},
		{netip.MustParsePrefix("::1/128"), "loopback"},
		{netip.MustParsePrefix("::/96"), "IPv4-compatible"}, // deprecated form of ::a.b.c.d
		{netip.MustParsePrefix("100::/64"), "reserved"},
		{netip.MustParsePrefix("64:ff9b:1::/48"), "local NAT64"},
		{netip.MustParsePrefix("fc00::/7"), "unique-local"},
		{netip.MustParsePrefix("fe80::/10"), "link-local"},
		{netip.MustParsePrefix("fec0::/10"), "site-local"},
		{netip.MustParsePrefix("ff00::/8"), "multicast"},
	}
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	sixToV4 = netip.MustParsePrefix("2002::/16")
)

type refusedRange struct {
	prefix netip.Prefix
	why    string
}

// refusedReason returns why a is not a public unicast address ("" when it is
// public). IPv4-mapped IPv6 is judged as the IPv4 address it maps, and the
// IPv4 address embedded in NAT64 and 6to4 addresses is judged too, because a
// translator would deliver the packet there.
func refusedReason(a netip.Addr) string {
	if !a.IsValid() {
		return "invalid"
	}
	a = a.WithZone("").Unmap()
	if a.Is4() {
		for _, r := range refusedV4 {
			if r.prefix.Contains(a) {
				return r.why
			}
		}
		return ""
	}
	for _, r := range refusedV6 {
		if r.prefix.Contains(a) {
			return r.why
		}
	}
	b := a.As16()
	var embedded netip.Addr
	switch {
	case nat64.Contains(a):
		embedded = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	case sixToV4.Contains(a):
		embedded = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
	default:
		return ""
	}
	if why := refusedReason(embedded); why != "" {
		return why + " (embedded IPv4)"
	}
	return ""
}
