package pgstore

import (
	"net/url"
	"regexp"
	"strings"
)

// mask replaces a password in what the store says about a DSN.
const mask = "xxxxx"

// secretKeys are the connection parameters whose values are secrets.
var secretKeys = []string{"password", "sslpassword"}

// kvSecret matches a secret parameter of a keyword/value DSN with its value, quoted or
// not: password=x, password = 'x y', password='it\'s'.
var kvSecret = regexp.MustCompile(`\b(password|sslpassword)\s*=\s*('(?:[^'\\]|\\.)*'?|\S*)`)

// Redact returns dsn with every password it holds replaced by xxxxx, for messages and
// logs: a URL's user password and its password and sslpassword parameters, or a
// keyword/value string's password and sslpassword. A DSN it cannot parse has everything
// between "://" and the last "@" masked.
func Redact(dsn string) string {
	if !isURL(dsn) {
		return kvSecret.ReplaceAllString(dsn, "${1}="+mask)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		scheme, rest, _ := strings.Cut(dsn, "://")
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			rest = mask + rest[at:]
		}
		return scheme + "://" + rest
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), mask)
	}
	if q := u.Query(); q != nil {
		changed := false
		for _, k := range secretKeys {
			if q.Has(k) {
				q.Set(k, mask)
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	return strings.Replace(u.String(), ":"+url.QueryEscape(mask)+"@", ":"+mask+"@", 1)
}

func isURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// secrets returns every password dsn may hold, as written and decoded, for scrub: what a
// lenient reading finds even where the DSN does not parse.
func secrets(dsn string) []string {
	var out []string
	add := func(s string) {
		if s != "" && s != mask {
			out = append(out, s)
			if d, err := url.PathUnescape(s); err == nil && d != s {
				out = append(out, d)
			}
			if d, err := url.QueryUnescape(s); err == nil && d != s {
				out = append(out, d)
			}
		}
	}
	if isURL(dsn) {
		_, rest, _ := strings.Cut(dsn, "://")
		hostPart, query, _ := strings.Cut(rest, "?")
		if at := strings.LastIndex(hostPart, "@"); at >= 0 {
			if _, pw, ok := strings.Cut(hostPart[:at], ":"); ok {
				add(pw)
			}
		}
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			for _, s := range secretKeys {
				if strings.EqualFold(k, s) {
					add(v)
				}
			}
		}
		return out
	}
	for _, m := range kvSecret.FindAllStringSubmatch(dsn, -1) {
		v := m[2]
		if strings.HasPrefix(v, "'") {
			v = strings.TrimSuffix(strings.TrimPrefix(v, "'"), "'")
			add(v)
			v = strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(v)
		}
		add(v)
	}
	return out
}

// scrub removes from msg (a driver's error) every password dsn holds, and the known
// password of the parsed configuration.
func scrub(msg, dsn string, known ...string) string {
	for _, s := range append(secrets(dsn), known...) {
		if s != "" {
			msg = strings.ReplaceAll(msg, s, mask)
		}
	}
	return msg
}
