package jsjson

import "strconv"

// A Path is the path of the value a conversion is at, kept as segments and rendered
// only when an error names it, so that converting a large value builds no strings.
type Path struct {
	root string
	segs []pathSeg
}

type pathSeg struct {
	key   string
	index int
	isKey bool
}

// NewPath returns a path at root ("result", "tool.parameters").
func NewPath(root string) *Path { return &Path{root: root} }

func (p *Path) pushIndex(i int)  { p.segs = append(p.segs, pathSeg{index: i}) }
func (p *Path) pushKey(k string) { p.segs = append(p.segs, pathSeg{key: k, isKey: true}) }
func (p *Path) pop()             { p.segs = p.segs[:len(p.segs)-1] }

// String renders the path: "result.items[2].when".
func (p *Path) String() string {
	s := p.root
	for _, seg := range p.segs {
		if seg.isKey {
			s = JoinPath(s, seg.key)
		} else {
			s += "[" + strconv.Itoa(seg.index) + "]"
		}
	}
	return s
}

// JoinPath appends an object key to a path: "a.b", or "a[\"odd key\"]".
func JoinPath(path, key string) string {
	if isIdent(key) {
		if path == "" {
			return key
		}
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}
