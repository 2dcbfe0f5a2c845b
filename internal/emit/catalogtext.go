package emit

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// The catalog's entries are written as text, laid out exactly as gofmt lays them out, so
// that the generator need not run gofmt over them. They use a small part of Go: composite
// literals of string literals (strconv.Quote: one line each), identifiers, true, and
// integers; the layout rules below are gofmt's for that part. TestCatalogTextIsGofmted
// holds them to gofmt's output.

// A kv is one field of a composite literal; an empty value leaves the field out.
type kv struct{ key, val string }

func field(key, val string) kv { return kv{key, val} }

// composite writes typ{Key: value, …}, one field a line, leaving out empty values so the
// file stays readable. gofmt aligns the values of consecutive fields that fit on one
// line; a field whose value spans lines (a list) is not aligned with its neighbours.
func composite(typ string, fields ...kv) string {
	fields = slices.DeleteFunc(fields, func(f kv) bool { return f.val == "" })
	if len(fields) == 0 {
		return typ + "{}"
	}
	var b strings.Builder
	b.WriteString(typ)
	b.WriteString("{\n")
	for i := 0; i < len(fields); {
		if strings.Contains(fields[i].val, "\n") {
			b.WriteString("\t" + fields[i].key + ": ")
			indented(&b, fields[i].val)
			b.WriteString(",\n")
			i++
			continue
		}
		// A run of one-line fields: their keys padded to the longest key's width.
		j, width := i, 0
		for ; j < len(fields) && !strings.Contains(fields[j].val, "\n"); j++ {
			width = max(width, utf8.RuneCountInString(fields[j].key))
		}
		for _, f := range fields[i:j] {
			b.WriteString("\t" + f.key + ":")
			b.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(f.key)+1))
			b.WriteString(f.val)
			b.WriteString(",\n")
		}
		i = j
	}
	b.WriteString("}")
	return b.String()
}

// compact writes {Key: value, …} on one line: for the small structs (parameters, fields,
// Go types) that come in lists, which then read as tables.
func compact(fields ...kv) string {
	var b strings.Builder
	b.WriteString("{")
	sep := ""
	for _, f := range fields {
		if f.val != "" {
			b.WriteString(sep + f.key + ": " + f.val)
			sep = ", "
		}
	}
	b.WriteString("}")
	return b.String()
}

// lines writes typ{item, …} one item a line; an item may span lines.
func lines(typ string, items []string) string {
	var b strings.Builder
	b.WriteString(typ)
	b.WriteString("{\n")
	for _, it := range items {
		b.WriteString("\t")
		indented(&b, it)
		b.WriteString(",\n")
	}
	b.WriteString("}")
	return b.String()
}

// literalLine writes typ{item, …} on one line.
func literalLine(typ string, items []string) string {
	return typ + "{" + strings.Join(items, ", ") + "}"
}

// indented writes s with its later lines indented one more tab.
func indented(b *strings.Builder, s string) {
	for {
		line, rest, more := strings.Cut(s, "\n")
		b.WriteString(line)
		if !more {
			return
		}
		b.WriteString("\n\t")
		s = rest
	}
}

// varBlock declares variables, sorted by name, in one var ( … ) block, after a comment.
// Every value fits on one line, so gofmt aligns the = of the whole block.
func varBlock(comment string, decls map[string]string) string {
	names := slices.Sorted(maps.Keys(decls))
	width := 0
	for _, name := range names {
		width = max(width, utf8.RuneCountInString(name))
	}
	var b strings.Builder
	b.WriteString("// " + comment + "\nvar (\n")
	for _, name := range names {
		b.WriteString("\t" + name)
		b.WriteString(strings.Repeat(" ", width-utf8.RuneCountInString(name)+1))
		b.WriteString("= " + decls[name] + "\n")
	}
	b.WriteString(")")
	return b.String()
}
