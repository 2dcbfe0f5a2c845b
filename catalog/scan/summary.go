package scan

import (
	"go/doc"
	"go/doc/comment"
	"strings"
	"unicode"
	"unicode/utf8"
)

// synopsis returns the Summary of a doc comment: its first sentence as one line of plain
// text (doc links rendered as their text), or "" when the comment opens with something
// other than a paragraph (a list, a code block).
//
// It is go/doc's Synopsis with two differences. The sentence ends where [firstSentence]
// finds a real end, not at the first ". " ("e.g. ", "i.e. " and "etc. and" are not ends).
// And no prefix empties it: go/doc drops synopses that start with "Copyright" or
// "Author", which is right for package comments and wrong for a method named Author.
func synopsis(text string) string {
	pkg := new(doc.Package)
	d := pkg.Parser().Parse(firstSentence(text))
	if len(d.Content) == 0 {
		return ""
	}
	if _, ok := d.Content[0].(*comment.Paragraph); !ok {
		return ""
	}
	d.Content = d.Content[:1]
	pr := pkg.Printer()
	pr.TextWidth = -1
	return strings.TrimSpace(string(pr.Text(d)))
}

// firstSentence returns text up to and including the end of its first sentence, looked
// for in the first paragraph only; a paragraph without one is returned whole.
func firstSentence(text string) string {
	para := firstParagraph(text)
	for i, r := range para {
		if end := sentenceEnd(para, i, r); end > 0 {
			return para[:end]
		}
	}
	return para
}

// firstParagraph returns text up to its first blank line.
func firstParagraph(text string) string {
	for i := 0; i < len(text); {
		nl := strings.IndexByte(text[i:], '\n')
		if nl < 0 {
			break
		}
		next := i + nl + 1
		line, _, _ := strings.Cut(text[next:], "\n")
		if strings.TrimSpace(line) == "" {
			return text[:i+nl]
		}
		i = next
	}
	return text
}

// closers may follow a terminator inside the sentence it ends: `(see X.)`, `"done."`.
const closers = `)]"'’”`

// sentenceEnd reports where the sentence ends when the rune r at byte i of s is a sentence
// terminator — a '.', '!' or '?' that follows a word, optionally followed by closers, then
// by white space or the end of s — and is not the period of an abbreviation. It returns
// the end offset, or 0.
func sentenceEnd(s string, i int, r rune) int {
	if r == '。' || r == '．' {
		return i + utf8.RuneLen(r) // an ideographic full stop needs no space after it
	}
	if r != '.' && r != '!' && r != '?' {
		return 0
	}
	if i == 0 || isSpace(s[i-1]) {
		return 0 // "a ? b : c", " .5"
	}
	end := i + 1
	for end < len(s) {
		c, n := utf8.DecodeRuneInString(s[end:])
		if !strings.ContainsRune(closers, c) {
			break
		}
		end += n
	}
	if end < len(s) && !isSpace(s[end]) {
		return 0 // "1.5", "os.Getenv", "e.g.,", "!="
	}
	if r == '.' && abbreviation(wordBefore(s, i), nextWord(s[end:])) {
		return 0
	}
	return end
}

// abbreviation reports whether word, the text before a period, is an abbreviation that
// does not end the sentence when next follows it.
func abbreviation(word, next string) bool {
	lower := strings.ToLower(word)
	switch lower {
	case "cf", "vs", "viz", "approx", "incl", "resp", "esp", "ca":
		return true
	case "etc":
		// "etc." ends a sentence as often as not; a lowercase word after it continues one.
		r, _ := utf8.DecodeRuneInString(next)
		return unicode.IsLower(r)
	}
	return dotted(word)
}

// dotted reports whether word is a dotted abbreviation without its last period — one
// letter, a period, one letter, and so on: "e.g", "i.e", "U.S", "a.k.a". Versions and
// qualified names ("1.2", "os.Getenv") have longer or non-letter parts and are not.
func dotted(word string) bool {
	parts := strings.Split(word, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		r, n := utf8.DecodeRuneInString(p)
		if n != len(p) || !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// wordBefore returns the run of non-space bytes that ends at s[i], without opening
// punctuation: in "(e.g. x", the word before the last period is "e.g".
func wordBefore(s string, i int) string {
	start := i
	for start > 0 && !isSpace(s[start-1]) {
		start--
	}
	return strings.TrimLeft(s[start:i], `(["'‘“`)
}

// nextWord returns s without its leading white space.
func nextWord(s string) string {
	return strings.TrimLeft(s, " \t\r\n")
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r'
}
