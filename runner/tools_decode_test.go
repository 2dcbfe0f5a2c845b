package runner

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cordiskit/cordiskit/runner/decl"
)

// decodeArgs answers as the strict json.Decoder alone does, values and errors alike,
// and takes the one-Unmarshal path for arguments whose keys are all fields.
func TestDecodeArgsMatchesStrictDecoder(t *testing.T) {
	keys := keysOf(reflect.TypeFor[decl.DefineInput]())
	for _, c := range []struct {
		in   string
		fast bool
	}{
		{`{"plugin":{"kind":"new","idPrefix":"x"},"name":"n","purpose":"p","code":{"host":"a\"}\\"}}`, true},
		{` { "plugin" : { "kind" : "new" } , "name" : "n" , "code" : null } `, true},
		{`{"plugin":{"kind":"new","idPrefix":"x"},"code":{"hots":"x"}}`, false},
		{`{"Plugin":{"kind":"new"}}`, false},
		{`{"plugin":{"kind":"new","extra":[1,{"a":"}"}]}}`, false},
		{`{"n\u0061me":"x"}`, false},
		{`{"name":1}`, true},
		{`{} {}`, true},
		{`{}x`, true},
	} {
		var got, want decl.DefineInput
		errGot := decodeArgs(json.RawMessage(c.in), &got, keys)
		errWant := decodeArgs(json.RawMessage(c.in), &want, nil)
		if (errGot == nil) != (errWant == nil) || errGot != nil && errGot.Error() != errWant.Error() || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decodeArgs = %+v, %v; the strict decoder = %+v, %v", c.in, got, errGot, want, errWant)
		}
		if _, fast := keys.walk([]byte(c.in), 0); fast != c.fast {
			t.Errorf("%s: the key walk says %v, want %v", c.in, fast, c.fast)
		}
	}
}
