package schema

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Bounds on validating values against a schema. The validator (github.com/google/jsonschema-go)
// follows $ref without a cycle check and visits every branch of allOf/anyOf/oneOf,
// recursing once per schema it applies: a schema that refers to itself without descending
// into the value is a fatal Go stack overflow, and branches that share their targets
// multiply the work. Compile proves these bounds hold before a schema is accepted.
const (
	// MaxChecks bounds how many (sub)schemas may apply to one value.
	MaxChecks = 256
	// MaxNesting bounds how deep validation may nest, over all levels of the value
	// together: the validator's stack depth (a frame is about 4 KiB), and the error it
	// builds on a failure, which repeats the path of every frame above it.
	MaxNesting = 1024
	// MaxArgsDepth is how deep a value may be nested when the schema still applies below
	// that depth (a recursive schema, such as a tree of nodes): Validate refuses deeper
	// values before it validates them.
	MaxArgsDepth = 64
	// maxWork bounds the work of the check itself, in graph steps.
	maxWork = 1 << 24
)

// checkDepth returns an error when doc, a JSON document, is nested deeper than max; a
// max of 0 means any depth, because the schema runs out first.
func checkDepth(doc []byte, max int) error {
	if max <= 0 {
		return nil
	}
	if d := jsonDepth(doc, max); d > max {
		return fmt.Errorf("the arguments are nested more than %d levels deep, and the tool's schema is recursive, so deeper values are not validated; send the value in smaller parts or flatten it", max)
	}
	return nil
}

// jsonDepth returns the nesting depth of doc (1 for {}), counting no further than max+1.
// doc need not be valid JSON; brackets inside strings do not count.
func jsonDepth(doc []byte, max int) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for _, c := range doc {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			if depth > deepest {
				if deepest = depth; deepest > max {
					return deepest
				}
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// An Error reports a schema that is not a usable JSON Schema, or one that cannot be
// validated against with bounded work.
type Error struct {
	// Path names the offending part of the schema: "tool.parameters.$defs.node".
	Path string
	// Msg says what is wrong and how to fix it.
	Msg string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// checkBounds checks that validating values against doc (a decoded JSON Schema document,
// draft 2020-12 or draft-07) takes bounded work and stack: every cycle of $ref goes
// through a property or an item, at most MaxChecks schemas apply to one value, and
// validation nests at most MaxNesting deep. References must stay inside the document
// ("#", "#/$defs/…", "#anchor"); $id below the root and $dynamicRef are refused, since they
// resolve in ways this check does not follow. name is how errors name the schema
// ("tool.parameters"). It returns how deep values may be nested (MaxArgsDepth when the
// schema is recursive, 0 for any depth). Errors are *Error.
//
// The check is conservative: it may refuse a schema the validator would handle, never the
// reverse. A schema that is not valid JSON Schema may pass; the validator reports that.
func checkBounds(doc any, name string) (int, error) {
	g := &schemaGraph{name: name, index: map[childKey]int32{}, anchors: map[string]int32{}}
	if err := g.add(doc, -1, "", "", 0); err != nil {
		return 0, err
	}
	if err := g.resolveRefs(); err != nil {
		return 0, err
	}
	if err := g.order(); err != nil {
		return 0, err
	}
	return g.simulate()
}

// A schemaGraph is a schema document as a graph of its subschemas. Edges in place apply
// another schema to the same value ($ref, allOf, anyOf, oneOf, not, if/then/else,
// dependentSchemas); edges down apply one to a part of the value (a property, an item).
// Validation terminates when the in-place edges have no cycle; its work per value is the
// number of in-place paths.
type schemaGraph struct {
	name    string
	nodes   []schemaNode
	index   map[childKey]int32 // JSON Pointer steps: (parent, keyword, key) → child
	anchors map[string]int32
	topo    []int32 // in-place edges go from lower to higher positions
	pos     []int32 // node → its position in topo
	chain   []int32 // node → the longest in-place path from it, in nodes
	work    int

	// scratch of closure, indexed by node
	count []int64
	seen  []bool
	reach []int32
}

type schemaNode struct {
	parent  int32
	kw, key string // how the parent reaches this node: properties + name, allOf + index
	ref     string
	inPlace []int32
	down    []downEdge
	names   map[string]bool // the labels of its named down edges
}

// A downEdge applies a schema to a part of the value: label is "p:" + a property name,
// "i:" + an array index, labelAny or labelRest.
type downEdge struct {
	label string
	to    int32
}

type childKey struct {
	parent  int32
	kw, key string
}

// Keywords whose value is a schema, an object of schemas, or an array of schemas, as the
// validator reads them; true means the subschemas apply to the same value (in place).
// The schemas of $defs and definitions apply only where a $ref names them.
var (
	singleSchemaKeywords = map[string]bool{
		"not": true, "if": true, "then": true, "else": true,
		"items": false, "additionalItems": false, "contains": false, "unevaluatedItems": false,
		"additionalProperties": false, "unevaluatedProperties": false, "propertyNames": false,
	}
	mapSchemaKeywords = map[string]bool{
		"dependentSchemas": true, "dependencies": true,
		"$defs": false, "definitions": false, "properties": false, "patternProperties": false,
	}
	listSchemaKeywords = map[string]bool{
		"allOf": true, "anyOf": true, "oneOf": true,
		"prefixItems": false, "items": false,
	}
)

const maxSchemaDocDepth = 512

// add adds the schema v (reached from parent through kw and key, depth levels below the
// root) and its subschemas.
func (g *schemaGraph) add(v any, parent int32, kw, key string, depth int) error {
	id := int32(len(g.nodes))
	g.nodes = append(g.nodes, schemaNode{parent: parent, kw: kw, key: key})
	if parent >= 0 {
		g.index[childKey{parent, kw, key}] = id
		g.link(parent, kw, key, id)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil // a boolean schema (anything else is the validator's to refuse)
	}
	if depth > maxSchemaDocDepth {
		return g.errAt(id, fmt.Sprintf("the schema is nested more than %d levels deep; move shared parts into $defs", maxSchemaDocDepth))
	}
	if err := g.checkKeywords(id, obj); err != nil {
		return err
	}
	for _, k := range sortedMapKeys(obj) {
		sub := obj[k]
		if _, ok := singleSchemaKeywords[k]; ok && isSchema(sub) {
			if err := g.add(sub, id, k, "", depth+1); err != nil {
				return err
			}
			continue
		}
		if _, ok := mapSchemaKeywords[k]; ok {
			if m, ok := sub.(map[string]any); ok {
				for _, name := range sortedMapKeys(m) {
					if isSchema(m[name]) {
						if err := g.add(m[name], id, k, name, depth+1); err != nil {
							return err
						}
					}
				}
			}
			continue
		}
		if _, ok := listSchemaKeywords[k]; ok {
			if list, ok := sub.([]any); ok {
				for i, e := range list {
					if isSchema(e) {
						if err := g.add(e, id, k, strconv.Itoa(i), depth+1); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

// checkKeywords records $ref and $anchor, and refuses the keywords this check cannot
// follow.
func (g *schemaGraph) checkKeywords(id int32, obj map[string]any) error {
	if _, ok := obj["$id"]; ok && id != 0 {
		return g.errAt(id, "$id below the root is not supported in tool schemas (it changes what $ref means beneath it); remove it and refer to the part by JSON Pointer, e.g. {$ref: '#/$defs/name'}")
	}
	for _, k := range []string{"$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"} {
		if _, ok := obj[k]; ok {
			return g.errAt(id, k+" is not supported in tool schemas; use $ref with a JSON Pointer, e.g. {$ref: '#/$defs/name'}")
		}
	}
	if a, ok := obj["$anchor"].(string); ok {
		if _, dup := g.anchors[a]; dup {
			return g.errAt(id, fmt.Sprintf("$anchor %q is defined twice; give each anchor its own name", a))
		}
		g.anchors[a] = id
	}
	if r, ok := obj["$ref"]; ok {
		s, ok := r.(string)
		if !ok {
			return &Error{Path: g.path(id) + ".$ref", Msg: fmt.Sprintf("must be a string such as \"#/$defs/name\", got %s", jsonKindOf(r))}
		}
		g.nodes[id].ref = s
	}
	return nil
}

// Labels of downEdges that name no part.
const (
	labelAny  = "*" // every part
	labelRest = "+" // the parts the schema does not name
)

// link records the edge from parent to its subschema id.
func (g *schemaGraph) link(parent int32, kw, key string, id int32) {
	p := &g.nodes[parent]
	switch {
	case kw == "$defs" || kw == "definitions":
		// A container: its schemas apply only where a $ref names them.
	case kw == "properties" || kw == "prefixItems" || (kw == "items" && key != ""):
		label := "p:" + key
		if kw != "properties" {
			label = "i:" + key
		}
		p.down = append(p.down, downEdge{label, id})
		if p.names == nil {
			p.names = map[string]bool{}
		}
		p.names[label] = true
	case kw == "additionalProperties" || kw == "additionalItems" || kw == "items":
		p.down = append(p.down, downEdge{labelRest, id})
	case singleSchemaKeywords[kw] || listSchemaKeywords[kw] || mapSchemaKeywords[kw]:
		p.inPlace = append(p.inPlace, id)
	default: // patternProperties, unevaluated…, contains, propertyNames
		p.down = append(p.down, downEdge{labelAny, id})
	}
}

// hasKeys reports whether a JSON Pointer step into keyword kw takes a second step (a
// property name or an index).
func hasKeys(kw string) bool {
	_, isMap := mapSchemaKeywords[kw]
	return isMap || isListKeyword(kw)
}

func isListKeyword(kw string) bool {
	_, ok := listSchemaKeywords[kw]
	return ok
}

func isSchema(v any) bool {
	switch v.(type) {
	case bool, map[string]any:
		return true
	}
	return false
}

// resolveRefs turns every $ref into an in-place edge, resolving it as the validator does:
// the fragment of the URI reference (percent-decoded) is a JSON Pointer or an anchor.
func (g *schemaGraph) resolveRefs() error {
	for id := range g.nodes {
		ref := g.nodes[id].ref
		if ref == "" {
			continue
		}
		to, err := g.resolve(ref)
		if err != nil {
			return &Error{Path: g.path(int32(id)) + ".$ref", Msg: fmt.Sprintf("%q %s", ref, err)}
		}
		g.nodes[id].inPlace = append(g.nodes[id].inPlace, to)
	}
	return nil
}

func (g *schemaGraph) resolve(ref string) (int32, error) {
	if !strings.HasPrefix(ref, "#") {
		return 0, fmt.Errorf("must point inside the schema, starting with '#' (\"#/$defs/name\"); other documents are not loaded")
	}
	u, err := url.Parse(ref)
	if err != nil {
		return 0, fmt.Errorf("is not a valid URI reference (%v); write it as \"#/$defs/name\"", err)
	}
	frag := u.Fragment
	if frag != "" && !strings.HasPrefix(frag, "/") {
		if id, ok := g.anchors[frag]; ok {
			return id, nil
		}
		return 0, fmt.Errorf("names no $anchor of the schema; define {$anchor: %q} on the schema it means, or use a JSON Pointer (\"#/$defs/name\")", frag)
	}
	id := int32(0)
	segs := strings.Split(frag, "/")[1:]
	for i := 0; i < len(segs); i++ {
		kw := unescapeToken(segs[i])
		next, ok := g.index[childKey{id, kw, ""}]
		if !ok && hasKeys(kw) && i+1 < len(segs) {
			i++
			next, ok = g.index[childKey{id, kw, unescapeToken(segs[i])}]
		}
		if !ok {
			return 0, fmt.Errorf("points at no schema (nothing at %q); point it at a schema of this document, e.g. \"#/$defs/name\" with the schema under $defs.name", "/"+strings.Join(segs[:i+1], "/"))
		}
		id = next
	}
	return id, nil
}

func unescapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}

// dfsFrame is one node on the explicit stack of order: its id and the next edge to follow.
type dfsFrame struct{ id, next int32 }

// order sorts the nodes topologically along their in-place edges, and computes the
// longest in-place path from each. A cycle of in-place edges is the fatal case: the
// validator would apply its schemas to the same value forever.
func (g *schemaGraph) order() error {
	n := len(g.nodes)
	const (
		unseen = iota
		open
		done
	)
	state := make([]uint8, n)
	g.chain = make([]int32, n)
	g.pos = make([]int32, n)
	post := make([]int32, 0, n)
	var stack []dfsFrame
	for start := range n {
		if state[start] != unseen {
			continue
		}
		stack = append(stack[:0], dfsFrame{int32(start), 0})
		state[start] = open
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			out := g.nodes[f.id].inPlace
			if int(f.next) < len(out) {
				to := out[f.next]
				f.next++
				switch state[to] {
				case open:
					return g.cycleError(stack, to)
				case unseen:
					state[to] = open
					stack = append(stack, dfsFrame{to, 0})
				}
				continue
			}
			longest := int32(0)
			for _, to := range out {
				longest = max(longest, g.chain[to])
			}
			g.chain[f.id] = min(longest+1, MaxNesting+1)
			state[f.id] = done
			post = append(post, f.id)
			stack = stack[:len(stack)-1]
		}
	}
	slices.Reverse(post)
	g.topo = post
	for i, id := range post {
		g.pos[id] = int32(i)
	}
	return nil
}

const recursionHelp = "; recursive schemas must recurse through a property or an item (a tree: {$defs: {node: {type: 'object', properties: {children: {type: 'array', items: {$ref: '#/$defs/node'}}}}}}), otherwise inline the shape"

// cycleError describes the in-place cycle that the DFS closed by reaching to, which is on
// the stack.
func (g *schemaGraph) cycleError(stack []dfsFrame, to int32) error {
	start := slices.IndexFunc(stack, func(f dfsFrame) bool { return f.id == to })
	cycle := stack[start:]
	if len(cycle) == 1 && g.nodes[to].ref != "" {
		what := "itself"
		if to == 0 {
			what = "the schema itself"
		}
		return &Error{Path: g.path(to) + ".$ref", Msg: fmt.Sprintf("%q refers to %s and never reaches a property or an item, so validating any value would never end%s", g.nodes[to].ref, what, recursionHelp)}
	}
	var steps []string
	for i, f := range cycle {
		if i == 8 && len(cycle) > 9 {
			steps = append(steps, fmt.Sprintf("… (%d more)", len(cycle)-9))
			break
		}
		steps = append(steps, g.path(f.id))
	}
	steps = append(steps, g.path(to))
	return &Error{Path: g.path(to), Msg: fmt.Sprintf("the cycle %s never reaches a property or an item (each step is a $ref, allOf, anyOf, oneOf, not, if/then/else or dependentSchemas), so validating any value would never end%s", strings.Join(steps, " → "), recursionHelp)}
}

// simulate follows the value down, one level of nesting at a time, and bounds the checks
// per value and the nesting of the validator. A level's state is, for every schema, an
// upper bound on how many times it applies to one value at that level; a value has one
// property name or index at a time, so parts with different names are bounded separately.
func (g *schemaGraph) simulate() (int, error) {
	g.count = make([]int64, len(g.nodes))
	g.seen = make([]bool, len(g.nodes))
	level := map[int32]int64{}
	if _, err := g.closure(map[int32]int64{0: 1}, 0, func(id int32, n int64) { level[id] = n }); err != nil {
		return 0, err
	}
	nesting := int(g.chain[0])
	for depth := 1; ; depth++ {
		parts, err := g.parts(level)
		if err != nil {
			return 0, err
		}
		if parts.empty() {
			return 0, nil // the schema says nothing about deeper values
		}
		if depth > MaxArgsDepth {
			return MaxArgsDepth, nil
		}
		next, deepest, err := g.descend(parts, depth)
		if err != nil {
			return 0, err
		}
		levels := 1
		if maps.Equal(next, level) {
			// A fixed point (plain recursion): every deeper level is this one again.
			levels = MaxArgsDepth - depth + 1
		}
		if nesting += deepest * levels; nesting > MaxNesting {
			return 0, g.errAt(0, fmt.Sprintf("validating arguments %d levels deep would nest more than %d checks inside each other (long $ref chains at every level); shorten the $ref chains or inline the shape", min(depth+levels-1, MaxArgsDepth), MaxNesting))
		}
		if levels > 1 {
			return MaxArgsDepth, nil
		}
		level = next
	}
}

// levelParts are the schemas a level applies to the parts of its values: to every part
// (wild), to the parts of one name or index (named), and to the parts a schema does not
// name itself (rest: additionalProperties, items after prefixItems).
type levelParts struct {
	wild  map[int32]int64
	named map[string]map[int32]int64
	rest  []restEdge
}

type restEdge struct {
	from, to int32
	n        int64
}

func (p *levelParts) empty() bool { return len(p.wild) == 0 && len(p.named) == 0 && len(p.rest) == 0 }

func (g *schemaGraph) parts(level map[int32]int64) (*levelParts, error) {
	p := &levelParts{wild: map[int32]int64{}, named: map[string]map[int32]int64{}}
	for id, n := range level {
		for _, e := range g.nodes[id].down {
			if g.work++; g.work > maxWork {
				return nil, g.errTooLarge()
			}
			switch e.label {
			case labelAny:
				p.wild[e.to] = satAdd(p.wild[e.to], n)
			case labelRest:
				p.rest = append(p.rest, restEdge{id, e.to, n})
			default:
				m := p.named[e.label]
				if m == nil {
					m = map[int32]int64{}
					p.named[e.label] = m
				}
				m[e.to] = satAdd(m[e.to], n)
			}
		}
	}
	return p, nil
}

// descend computes the next level: for each name (and for the names no schema gives), the
// schemas that apply to a part of that name, closed over in-place edges; the level is the
// closure of the wild ones plus the pointwise maximum over the names. deepest is the
// longest in-place chain that starts at the level.
func (g *schemaGraph) descend(p *levelParts, depth int) (map[int32]int64, int, error) {
	next := map[int32]int64{}
	base, err := g.closure(p.wild, depth, func(id int32, n int64) { next[id] = n })
	if err != nil {
		return nil, 0, err
	}
	deepest := 0
	for id := range p.wild {
		deepest = max(deepest, int(g.chain[id]))
	}
	most := map[int32]int64{}
	note := func(id int32, n int64) { most[id] = max(most[id], n) }
	for _, label := range append(sortedMapKeys(p.named), labelRest) {
		entries := p.named[label]
		if len(p.rest) > 0 {
			entries = maps.Clone(entries)
			if entries == nil {
				entries = map[int32]int64{}
			}
			for _, e := range p.rest {
				if !g.nodes[e.from].names[label] {
					entries[e.to] = satAdd(entries[e.to], e.n)
				}
			}
		}
		if g.work += len(entries) + 1; g.work > maxWork {
			return nil, 0, g.errTooLarge()
		}
		if _, err := g.closure(entries, depth, note, base); err != nil {
			return nil, 0, err
		}
		for id := range entries {
			deepest = max(deepest, int(g.chain[id]))
		}
	}
	for id, n := range most {
		next[id] = satAdd(next[id], n)
	}
	return next, deepest, nil
}

// closure calls visit, in no set order, for every schema reachable through in-place edges
// from entries, with how many times it applies to a value that entries apply to (the
// number of paths), and returns the total. With the checks in base (that apply to the
// same value otherwise), the total may not pass MaxChecks.
func (g *schemaGraph) closure(entries map[int32]int64, depth int, visit func(id int32, n int64), base ...int64) (int64, error) {
	if len(entries) == 0 {
		return 0, nil
	}
	reach := g.reach[:0]
	defer func() {
		for _, id := range reach {
			g.count[id], g.seen[id] = 0, false
		}
		g.reach = reach[:0]
	}()
	for id, n := range entries {
		g.count[id], g.seen[id] = n, true
		reach = append(reach, id)
	}
	slices.Sort(reach)
	for i := 0; i < len(reach); i++ {
		if len(reach) > MaxChecks { // each reachable schema applies at least once
			return 0, g.tooManyChecks(reach[0], depth)
		}
		for _, to := range g.nodes[reach[i]].inPlace {
			if g.work++; g.work > maxWork {
				return 0, g.errTooLarge()
			}
			if !g.seen[to] {
				g.seen[to] = true
				reach = append(reach, to)
			}
		}
	}
	slices.SortFunc(reach, func(a, b int32) int { return int(g.pos[a] - g.pos[b]) })
	total := int64(0)
	for _, b := range base {
		total = satAdd(total, b)
	}
	most := reach[0]
	for _, id := range reach {
		n := g.count[id]
		total = satAdd(total, n)
		if n > g.count[most] || (n == g.count[most] && id < most) {
			most = id
		}
		for _, to := range g.nodes[id].inPlace {
			g.count[to] = satAdd(g.count[to], n)
		}
	}
	if total > MaxChecks {
		return 0, g.tooManyChecks(most, depth)
	}
	for _, id := range reach {
		visit(id, g.count[id])
	}
	return total, nil
}

// satAdd adds counts, saturating well above any bound they are compared with.
func satAdd(a, b int64) int64 {
	const limit = 1 << 40
	return min(a+b, limit)
}

func (g *schemaGraph) errTooLarge() error {
	return g.errAt(0, "the schema is too large to check that validating against it is bounded; use fewer properties, branches or $refs")
}

// errAt is a *Error at node id.
func (g *schemaGraph) errAt(id int32, msg string) error {
	return &Error{Path: g.path(id), Msg: msg}
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// path names node id for a message: "tool.parameters.properties.a.items".
func (g *schemaGraph) path(id int32) string {
	var parts []string
	for ; id > 0; id = g.nodes[id].parent {
		n := g.nodes[id]
		switch {
		case n.key == "":
			parts = append(parts, "."+n.kw)
		case isListKeyword(n.kw):
			parts = append(parts, "."+n.kw+"["+n.key+"]")
		case identRE.MatchString(n.key):
			parts = append(parts, "."+n.kw+"."+n.key)
		default:
			parts = append(parts, "."+n.kw+"["+strconv.Quote(n.key)+"]")
		}
	}
	slices.Reverse(parts)
	return g.name + strings.Join(parts, "")
}

func sortedMapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func jsonKindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a string"
}

func (g *schemaGraph) tooManyChecks(at int32, depth int) error {
	where := "the arguments"
	if depth == 1 {
		where = "a value 1 level into the arguments"
	} else if depth > 1 {
		where = fmt.Sprintf("a value %d levels into the arguments", depth)
	}
	return g.errAt(at, fmt.Sprintf("%s would be checked against more than %d schemas: $ref chains, and allOf/anyOf/oneOf branches that lead to the same schemas, multiply the checks, and recursion through several branches multiplies them at every level; shorten the $ref chains, make one branch hold the recursion, or inline the shape", where, MaxChecks))
}
