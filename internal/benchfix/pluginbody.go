package benchfix

import (
	_ "embed"
	"strconv"
	"strings"
)

// PluginBody is the anchors' plugin-body.js: a plugin named echo-tool-__ID__ whose apply
// listens to 'some/event' and counts the calls.
//
//go:embed plugin-body.js
var PluginBody string

// OnEvent returns body with the anchors' 'some/event' replaced by event: the sandbox's
// ctx.on accepts only catalogued events.
func OnEvent(body, event string) string { return strings.ReplaceAll(body, "some/event", event) }

// WithID returns body with __ID__ replaced by id, so that every mount compiles distinct
// source, as the anchors' mounts do.
func WithID(body string, id int) string { return strings.ReplaceAll(body, "__ID__", strconv.Itoa(id)) }
