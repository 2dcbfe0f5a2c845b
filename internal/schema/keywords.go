package schema

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// jsonTypes are the names the type keyword takes.
var jsonTypes = []string{"string", "number", "integer", "boolean", "null", "object", "array"}

// checkKeywords walks the schema v, named path, for the mistakes the validator reports
// without a path, or not at all: a type that names no JSON type is accepted and then fails
// every value, so a tool that can never be called would show only when it is called.
// It descends through the keywords of the schema graph (bounds.go) and stops at the
// same depth the graph does.
func checkKeywords(v any, path string) error { return checkSchemaAt(v, path, 0) }

func checkSchemaAt(v any, path string, depth int) error {
	if _, ok := v.(bool); ok {
		return nil
	}
	s, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s must be a schema (an object or a boolean), got %s", path, jsonKind(v))
	}
	if depth > maxSchemaDocDepth {
		return nil // checkBounds refuses it, naming the depth
	}
	for _, k := range sortedMapKeys(s) {
		if check, ok := valueChecks[k]; ok {
			if err := check(s[k], path+"."+k); err != nil {
				return err
			}
		}
	}
	return checkSubschemas(s, path, depth)
}

// checkSubschemas checks the schemas s holds under the keywords of the schema graph.
func checkSubschemas(s map[string]any, path string, depth int) error {
	for _, k := range sortedMapKeys(s) {
		sub, at := s[k], path+"."+k
		_, isMap := mapSchemaKeywords[k]
		_, isList := listSchemaKeywords[k]
		_, isSingle := singleSchemaKeywords[k]
		list, isArray := sub.([]any)
		switch {
		case isMap && k != "dependencies": // draft-07 dependencies may also list names
			m, ok := sub.(map[string]any)
			if !ok {
				return fmt.Errorf("%s must be an object of schemas, got %s", at, jsonKind(sub))
			}
			for _, name := range sortedMapKeys(m) {
				if k == "patternProperties" {
					if _, err := regexp.Compile(name); err != nil {
						return fmt.Errorf("%s: %q is not a valid pattern: %v", at, name, err)
					}
				}
				if err := checkSchemaAt(m[name], joinKey(at, name), depth+1); err != nil {
					return err
				}
			}
		case isList && (isArray || !isSingle):
			if !isArray || len(list) == 0 {
				return fmt.Errorf("%s must be a non-empty array of schemas, got %s", at, jsonKind(sub))
			}
			for i, e := range list {
				if err := checkSchemaAt(e, fmt.Sprintf("%s[%d]", at, i), depth+1); err != nil {
					return err
				}
			}
		case isSingle:
			if err := checkSchemaAt(sub, at, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// valueChecks check the keywords whose value is not a schema, by keyword.
var valueChecks = map[string]func(v any, path string) error{
	"type":     checkType,
	"required": checkRequired,
	"enum": func(v any, path string) error {
		if list, ok := v.([]any); !ok || len(list) == 0 {
			return fmt.Errorf("%s must be a non-empty array, got %s", path, jsonKind(v))
		}
		return nil
	},
	"pattern": func(v any, path string) error {
		p, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s must be a string, got %s", path, jsonKind(v))
		}
		if _, err := regexp.Compile(p); err != nil {
			return fmt.Errorf("%s %q is not a valid pattern: %v", path, p, err)
		}
		return nil
	},
	"$ref": func(v any, path string) error {
		if r, ok := v.(string); !ok || !strings.HasPrefix(r, "#") {
			return fmt.Errorf("%s must point inside the schema (\"#/$defs/…\"); remote references are not loaded, got %s", path, jsonText(v))
		}
		return nil
	},
	"minimum": checkNumber, "maximum": checkNumber, "exclusiveMinimum": checkNumber,
	"exclusiveMaximum": checkNumber, "multipleOf": checkNumber,
	"minLength": checkCount, "maxLength": checkCount, "minItems": checkCount,
	"maxItems": checkCount, "minProperties": checkCount, "maxProperties": checkCount,
}

func checkType(v any, path string) error {
	switch t := v.(type) {
	case string:
		if !slices.Contains(jsonTypes, t) {
			return fmt.Errorf("%s must be one of %s; got %q", path, strings.Join(jsonTypes, ", "), t)
		}
	case []any:
		for i, e := range t {
			if es, ok := e.(string); !ok || !slices.Contains(jsonTypes, es) {
				return fmt.Errorf("%s[%d] must be one of %s; got %s", path, i, strings.Join(jsonTypes, ", "), jsonText(e))
			}
		}
	default:
		return fmt.Errorf("%s must be a type name such as \"string\" (or an array of them), got %s", path, jsonKind(v))
	}
	return nil
}

func checkRequired(v any, path string) error {
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("%s must be an array of property names, got %s", path, jsonKind(v))
	}
	for i, e := range list {
		if _, ok := e.(string); !ok {
			return fmt.Errorf("%s[%d] must be a property name (a string), got %s", path, i, jsonKind(e))
		}
	}
	return nil
}

func checkNumber(v any, path string) error {
	if _, ok := v.(float64); !ok {
		return fmt.Errorf("%s must be a number, got %s", path, jsonKind(v))
	}
	return nil
}

func checkCount(v any, path string) error {
	if f, ok := v.(float64); !ok || f < 0 || f != float64(int64(f)) {
		return fmt.Errorf("%s must be a non-negative integer, got %s", path, jsonText(v))
	}
	return nil
}

// joinKey names the member key of the object at path: path.key, or path["a b"] when key
// is not an identifier.
func joinKey(path, key string) string {
	if identRE.MatchString(key) {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func jsonKind(v any) string {
	if v == nil {
		return "null"
	}
	if _, ok := v.(string); ok {
		return "a string"
	}
	return jsonKindOf(v)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
