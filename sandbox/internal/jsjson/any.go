package jsjson

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/dop251/goja"
)

// FromAny converts plain Go data into a fresh JavaScript value: nil, booleans, strings,
// numbers, json.RawMessage, and slices, arrays and string-keyed maps of those are converted
// directly; anything else goes through encoding/json (so a struct becomes a plain object of
// its exported fields and no Go method is ever reachable). An integer beyond ±2^53, which a
// JavaScript number cannot hold exactly, is an error, as are values encoding/json rejects.
// Each value takes an element of bud and each string its bytes: Go data shares too
// ([]any{x, x}), and the copy is made in full. depth is v's nesting (0 at the top). Lock
// held.
func FromAny(r Realm, bud *conv.Budget, v any, depth int) (goja.Value, error) {
	rt := r.Runtime()
	maxBytes, maxDepth := r.Limits()
	if err := bud.TakeNodes(1, "the Go value"); err != nil {
		return nil, err
	}
	switch x := v.(type) {
	case nil:
		return goja.Null(), nil
	case string:
		if len(x) > maxBytes {
			return nil, fmt.Errorf("string of %d bytes exceeds the %d-byte limit", len(x), maxBytes)
		}
		if err := bud.TakeBytes(len(x), "the Go value"); err != nil {
			return nil, err
		}
		return rt.ToValue(x), nil
	case bool:
		return rt.ToValue(x), nil
	case float64:
		return rt.ToValue(x), nil
	case float32:
		return rt.ToValue(float64(x)), nil
	case int:
		return safeInt(rt, int64(x))
	case int8:
		return rt.ToValue(int64(x)), nil
	case int16:
		return rt.ToValue(int64(x)), nil
	case int32:
		return rt.ToValue(int64(x)), nil
	case uint8:
		return rt.ToValue(int64(x)), nil
	case uint16:
		return rt.ToValue(int64(x)), nil
	case uint32:
		return rt.ToValue(int64(x)), nil
	case int64:
		return safeInt(rt, x)
	case uint:
		return safeUint(rt, uint64(x))
	case uint64:
		return safeUint(rt, x)
	case json.RawMessage:
		return Decode(r, bud, x)
	case []any:
		if depth >= maxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
		}
		if err := bud.NeedNodes(int64(len(x)), "the Go value"); err != nil {
			return nil, err
		}
		items := make([]any, len(x))
		for i, e := range x {
			ev, err := FromAny(r, bud, e, depth+1)
			if err != nil {
				return nil, err
			}
			items[i] = ev
		}
		return rt.NewArray(items...), nil
	case []string:
		if err := bud.TakeNodes(int64(len(x)), "the Go value"); err != nil {
			return nil, err
		}
		items := make([]any, len(x))
		for i, e := range x {
			if err := bud.TakeBytes(len(e), "the Go value"); err != nil {
				return nil, err
			}
			items[i] = e
		}
		return rt.NewArray(items...), nil
	case map[string]any:
		if depth >= maxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
		}
		o := rt.NewObject()
		for _, k := range slices.Sorted(maps.Keys(x)) {
			ev, err := FromAny(r, bud, x[k], depth+1)
			if err != nil {
				return nil, err
			}
			if err := o.DefineDataProperty(k, ev, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
				return nil, err
			}
		}
		return o, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("converting %T to JavaScript: %w", v, err)
	}
	return Decode(r, bud, b)
}

func safeInt(rt *goja.Runtime, i int64) (goja.Value, error) {
	if i > conv.MaxSafeInt || i < -conv.MaxSafeInt {
		return nil, fmt.Errorf("integer %d is outside ±2^53 and cannot be represented exactly as a JavaScript number", i)
	}
	return rt.ToValue(i), nil
}

func safeUint(rt *goja.Runtime, u uint64) (goja.Value, error) {
	if u > conv.MaxSafeInt {
		return nil, fmt.Errorf("integer %d is outside ±2^53 and cannot be represented exactly as a JavaScript number", u)
	}
	return rt.ToValue(int64(u)), nil
}
