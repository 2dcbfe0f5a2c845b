package jsjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"github.com/dop251/goja"
)

// Decode converts the JSON document raw into a fresh JavaScript value (object keys keep
// their order; a "__proto__" key becomes an ordinary own property), within bud: the
// document's values take elements and its bytes take bytes (a bound on its strings). An
// empty document is undefined. Invalid JSON, or a document larger than the realm's byte
// limit or nested deeper than its depth limit, is an error. Lock held.
func Decode(r Realm, bud *conv.Budget, raw []byte) (goja.Value, error) {
	maxBytes, maxDepth := r.Limits()
	if len(raw) > maxBytes {
		return nil, fmt.Errorf("JSON document of %d bytes exceeds the %d-byte limit", len(raw), maxBytes)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return goja.Undefined(), nil
	}
	if err := bud.TakeBytes(len(raw), "the JSON document"); err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	v, err := decodeValue(r.Runtime(), maxDepth, bud, d, 0, &Path{})
	if err != nil {
		return nil, fmt.Errorf("decoding JSON: %w", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("decoding JSON: data after the top-level value")
	}
	return v, nil
}

// decodeValue decodes the next value of d, at path, each value taking an element of bud.
func decodeValue(rt *goja.Runtime, maxDepth int, bud *conv.Budget, d *json.Decoder, depth int, path *Path) (goja.Value, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	if bud.Nodes == 0 {
		at := "the JSON document"
		if p := path.String(); p != "" {
			at += " at " + p
		}
		return nil, bud.NeedNodes(1, at)
	}
	bud.Nodes--
	switch t := tok.(type) {
	case nil:
		return goja.Null(), nil
	case bool:
		return rt.ToValue(t), nil
	case string:
		return rt.ToValue(t), nil
	case json.Number:
		return numberValue(rt, string(t))
	case json.Delim:
		if depth >= maxDepth {
			return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
		}
		if t == '[' {
			var items []any
			for d.More() {
				path.pushIndex(len(items))
				v, err := decodeValue(rt, maxDepth, bud, d, depth+1, path)
				path.pop()
				if err != nil {
					return nil, err
				}
				items = append(items, v)
			}
			if _, err := d.Token(); err != nil {
				return nil, err
			}
			return rt.NewArray(items...), nil
		}
		o := rt.NewObject()
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			k, _ := kt.(string)
			path.pushKey(k)
			v, err := decodeValue(rt, maxDepth, bud, d, depth+1, path)
			path.pop()
			if err != nil {
				return nil, err
			}
			if err := o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
				return nil, err
			}
		}
		if _, err := d.Token(); err != nil {
			return nil, err
		}
		return o, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

func numberValue(rt *goja.Runtime, s string) (goja.Value, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil && i <= conv.MaxSafeInt && i >= -conv.MaxSafeInt {
		return rt.ToValue(i), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, err
	}
	return rt.ToValue(f), nil // like JSON.parse: beyond 2^53 rounds, beyond ±1.8e308 is ±Infinity
}
