package scan

import (
	"reflect"
	"strings"
	"unicode"
)

// lowerCamel converts an exported Go name to its JavaScript spelling: the leading run of
// upper-case letters is lowered, except for the last one when a lower-case letter follows
// it, so that initialisms read naturally ("ID" → "id", "HTTPServer" → "httpServer",
// "SetTimeout" → "setTimeout", "IDs" → "ids").
func lowerCamel(name string) string {
	runes := []rune(name)
	n := 0
	for n < len(runes) && unicode.IsUpper(runes[n]) {
		n++
	}
	switch {
	case n == 0:
		return name
	case n == len(runes), n > 1 && string(runes[n:]) == "s": // "ID", "IDs", "URLs"
		return strings.ToLower(name)
	case n > 1 && unicode.IsLower(runes[n]):
		n-- // keep the capital that starts the next word
	}
	for i := range n {
		runes[i] = unicode.ToLower(runes[i])
	}
	return string(runes)
}

// A jsonTag is the parsed json struct tag of a field.
type jsonTag struct {
	name      string // "" when the tag does not rename the field
	skip      bool   // json:"-"
	omitempty bool   // omitempty or omitzero
}

func parseJSONTag(tag string) jsonTag {
	v, ok := reflect.StructTag(tag).Lookup("json")
	if !ok {
		return jsonTag{}
	}
	if v == "-" {
		return jsonTag{skip: true}
	}
	name, opts, _ := strings.Cut(v, ",")
	t := jsonTag{name: name}
	for opt := range strings.SplitSeq(opts, ",") {
		if opt == "omitempty" || opt == "omitzero" {
			t.omitempty = true
		}
	}
	return t
}

// jsQuote quotes s as a single-quoted JavaScript string literal.
func jsQuote(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}
