package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// FindReferences returns the Plugin ids text mentions as "@clock-1", each once, in the
// order of their first mention (docs/dynamic-plugins.md, "References and
// the system prompt"). A mention is "@" (or the full-width "＠" a
// CJK input method types), an id prefix of 3–6 lowercase letters, "-" and a number without
// leading zeros, standing apart from the words around it: punctuation, spaces and CJK
// characters delimit it ("请修改@clock-1的显示", "(@clock-1)", "@clock-1.", "@clock-1,@panel-2"),
// while letters, digits, "_" and "-" glue it to a word ("mail@clock-1", "@clock-1x",
// "@clock-1-2"), as does a dot that goes on into a word ("@clock-1.com"). The original's
// pattern needs whitespace around a mention and misses all the delimited forms above.
func FindReferences(text string) []string {
	var ids []string
	for i := 0; i < len(text); {
		at, size := nextAt(text, i)
		if at < 0 {
			break
		}
		i = at + size
		end, ok := mentionEnd(text, i)
		if !ok || !delimitsBefore(text, at) || !delimitsAfter(text, end) {
			continue
		}
		if id := text[i:end]; !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
		i = end
	}
	return ids
}

// nextAt returns the offset and size of the next at sign in text from i, or -1.
func nextAt(text string, i int) (int, int) {
	a := strings.IndexByte(text[i:], '@')
	w := strings.Index(text[i:], "＠")
	switch {
	case a < 0 && w < 0:
		return -1, 0
	case w < 0 || a >= 0 && a < w:
		return i + a, 1
	}
	return i + w, len("＠")
}

// mentionEnd returns the end of an id "[a-z]{3,6}-[1-9][0-9]*" that starts at i.
func mentionEnd(text string, i int) (int, bool) {
	j := i
	for j < len(text) && 'a' <= text[j] && text[j] <= 'z' {
		j++
	}
	if n := j - i; n < 3 || n > 6 || j+1 >= len(text) || text[j] != '-' || text[j+1] < '1' || text[j+1] > '9' {
		return 0, false
	}
	for j += 2; j < len(text) && '0' <= text[j] && text[j] <= '9'; j++ {
	}
	return j, true
}

// delimitsBefore reports whether the text before offset at lets a mention start there.
func delimitsBefore(text string, at int) bool {
	r, _ := utf8.DecodeLastRuneInString(text[:at])
	return at == 0 || !isWordRune(r)
}

// delimitsAfter reports whether the text from offset end lets a mention end there.
func delimitsAfter(text string, end int) bool {
	if end == len(text) {
		return true
	}
	r, size := utf8.DecodeRuneInString(text[end:])
	if r == '.' {
		next, _ := utf8.DecodeRuneInString(text[end+size:])
		return end+size == len(text) || !isWordRune(next)
	}
	return !isWordRune(r) && r != '-'
}

// isWordRune reports whether r continues a word a mention cannot be part of: a letter or
// digit of a script that spaces its words, or "_". CJK characters do not: those scripts
// write without spaces, so a mention sits right next to them.
func isWordRune(r rune) bool {
	switch {
	case r == '_':
		return true
	case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// ReferenceBlocks returns, for each Plugin that text mentions (FindReferences), the
// context message a runtime adds after the user's message for the model's next step
// (docs/dynamic-plugins.md, "References and the system prompt"): what the Plugin is now,
// or that it is unavailable. Only Plugins of the calling session on ctx resolve; another
// session's read as unavailable, like removed ones. Scan the user's text as the model will
// see it (after earlier rewrites), not the original.
func (r *Runner) ReferenceBlocks(ctx context.Context, text string) []string {
	ids := FindReferences(text)
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		ref, found := r.Reference(ctx, id)
		out = append(out, RenderReference(id, ref, found))
	}
	return out
}

// RenderReference renders the context message for a mention of Plugin id: ref, what
// Runner.Reference resolved (found false: it did not), as JSON with the steps to change
// that exact Plugin, or the instruction to tell the user it is unavailable.
func RenderReference(id string, ref Reference, found bool) string {
	if !found {
		return fmt.Sprintf("<cordis_dynamic_plugin_context>\n"+
			"The user referenced dynamic Plugin @%s, but it is not available in this session: it was removed (cordis_undefine), lost on a restart, or belongs to another session.\n"+
			"Tell the user so. Do not silently create a replacement; define a new Plugin only if the user asks for one.\n"+
			"</cordis_dynamic_plugin_context>", id)
	}
	state, err := json.MarshalIndent(ref, "", "  ")
	if err != nil { // a Reference is plain data; this cannot happen
		state = []byte(fmt.Sprintf("%q", err.Error()))
	}
	mode := dynamic.ModeUpdate
	if ref.CurrentPackageID == "" {
		mode = dynamic.ModeRun
	}
	return fmt.Sprintf("<cordis_dynamic_plugin_context>\n"+
		"The user referenced dynamic Plugin @%[1]s. Its state now (without source code):\n%[2]s\n"+
		"To change it, work on this exact Plugin:\n"+
		"1. Read Package %[3]s first: cordis_inspect_self {\"pluginId\": %[1]q, \"packageId\": %[3]q}.\n"+
		"2. Define the change as a new Package of the same Plugin: cordis_define with plugin {\"kind\": \"existing\", \"pluginId\": %[1]q}. Do not create a new Plugin.\n"+
		"3. Start it: cordis_run {\"pluginId\": %[1]q, \"packageId\": <the packageId cordis_define returned>, \"mode\": %[4]q}.\n"+
		"</cordis_dynamic_plugin_context>", id, state, ref.PackageID, mode)
}
