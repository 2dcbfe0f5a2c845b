package sandbox

import (
	"encoding/json"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/cordiskit/cordiskit/sandbox/internal/jsjson"

	"github.com/dop251/goja"
)

// A conversion's budget (sandbox/internal/conv.Budget) bounds its output — one argument
// of a Go method, one JSON document, one value crossing the membrane — to Limits.MaxNodes
// elements and Limits.MaxBytes bytes of strings. A value small in the JavaScript heap can
// be huge once copied (an array holding one array twice, forty levels deep, is 2^40
// leaves; an array of references to one long string is that string many times over), so
// the budget counts what the conversion produces, as it goes and before it allocates. A
// copy into Go or JSON is a tree, so every copy of a shared reference counts again (the
// membrane copies a shared array once, see Provided). Generated façade code gets one per
// argument from sandbox/bind; a budget that runs out throws a *LimitError. Lock held.

// newBudget returns a full budget for one conversion in r. Lock held.
func newBudget(r *Realm) *conv.Budget {
	b := conv.NewBudget(thrower{r}, r.engine.limits.MaxNodes, r.engine.limits.MaxBytes, limitError)
	return &b
}

// limitError is the error of a budget that ran out.
func limitError(l conv.Limit) error {
	return &LimitError{Path: l.Path, What: l.What, Limit: l.Limit, Field: l.Field, Got: l.Got, Tree: l.Tree}
}

// A thrower is how package conv throws into the realm: a value of one pointer, so making
// one does not allocate.
type thrower struct{ r *Realm }

func (t thrower) Throw(err error) { t.r.throw(err) }

// A LimitError reports a converted value that outgrew its budget, at the path where the
// budget ran out.
type LimitError struct {
	Path  string // "exec.run: parameter cmd.args[7]", "result.items", "ctx.svc.list[3]"
	What  string // "elements" or "bytes of strings"
	Limit int    // the limit in force
	Field string // the Limits field that sets it: "MaxNodes" or "MaxBytes"
	Got   string // what was found instead, when known before converting ("an array of length 4294967295")
	// Tree reports a copy made as a tree (into Go or JSON), where a shared reference
	// counts each time it is copied; the message says so.
	Tree bool
}

func (e *LimitError) Error() string {
	path := e.Path
	if path == "" {
		path = "the value"
	}
	got := ""
	if e.Got != "" {
		got = " (" + e.Got + ")"
	}
	tree := ""
	if e.Tree {
		tree = "; shared references count each time they are copied"
	}
	return fmt.Sprintf("%s: the value converts to more than %d %s%s%s (the bound is Limits.%s); pass less, or page it",
		path, e.Limit, e.What, got, tree, e.Field)
}

// budgetJSON converts v to JSON like ToJSON, within the budget b: the document's values
// take elements and its bytes take bytes. It is sandbox/bind's RawJSON. Lock held.
func (r *Realm) budgetJSON(b *conv.Budget, v goja.Value, path string) json.RawMessage {
	out, err := jsjson.Append(jsonRealm{r}, b, nil, v, jsjson.NewPath(path), 0)
	if err == nil {
		err = b.TakeBytes(len(out), path)
	}
	if err != nil {
		r.throw(err)
	}
	return out
}
