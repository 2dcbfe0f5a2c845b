package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// isPrefix reports whether s is a Plugin id prefix: 3–6 lowercase English letters.
func isPrefix(s string) bool {
	return len(s) >= 3 && len(s) <= 6 && strings.IndexFunc(s, func(c rune) bool { return c < 'a' || c > 'z' }) < 0
}

// Define records a new immutable Package, on a new Plugin or an existing one of the
// calling session, and runs nothing: a running Plugin keeps running its old Package. The
// first failing check refuses the define; nothing is recorded and no id is consumed.
func (r *Runner) Define(ctx context.Context, in dynamic.DefineInput) (dynamic.DefineOutput, error) {
	session, err := r.session(ctx)
	if err != nil {
		return dynamic.DefineOutput{}, err
	}
	d, err := r.checkDefine(in)
	if err != nil {
		return dynamic.DefineOutput{}, err
	}
	d.Session, d.MaxPlugins, d.MaxPackages = session, r.opts.MaxPluginsPerSession, r.opts.MaxPackagesPerSession
	if err := r.lock(); err != nil {
		return dynamic.DefineOutput{}, err
	}
	r.mu.Unlock()
	// Not under r.mu: the define changes nothing the Runner holds in memory, and one
	// session's slow store call must not hold up every other session's verbs. The Store
	// makes it one change on its own — the caps' count with the insert, the Plugin's
	// existence with the new Package — and a Define may run beside the Runner's other
	// calls for its Plugin (Store): a new Plugin has none, and for an existing one it
	// only adds a Package, before or after an undefine or a run's change of it.
	l, k, err := r.store.Define(ctx, d)
	if errors.Is(err, ErrNotFound) {
		return dynamic.DefineOutput{}, missing(in.Plugin.PluginID)
	}
	if c, ok := errors.AsType[*CapError](err); ok {
		return dynamic.DefineOutput{}, capRefusal(c)
	}
	if err != nil {
		return dynamic.DefineOutput{}, err
	}
	DefinitionChanged.Emit(r.ctx(), DefinitionChangedEvent{Session: session, PluginID: l.ID, PackageID: k.ID, Change: Defined})
	return dynamic.DefineOutput{PluginID: l.ID, PackageID: k.ID, Name: k.Name, Purpose: k.Purpose, HasHostHalf: k.HasHost(), HasClientHalf: k.HasClient()}, nil
}

// capRefusal is the refusal of a define past Options.MaxPluginsPerSession or
// MaxPackagesPerSession. The Store counts what it holds as it records (Store.Define), so
// concurrent defines of one session — in this process or another on the same Store —
// cannot together go past a cap, and Plugins a durable Store restored past a lowered cap
// all stay: only new definitions are refused until the session is back under the cap.
func capRefusal(c *CapError) *Error {
	if c.Cap == CapPlugins {
		return &Error{Reason: ReasonLimit, Err: c, Message: fmt.Sprintf("this session holds %d Plugins, the most it may hold (runner.Options.MaxPluginsPerSession); cordis_undefine one you no longer need (cordis_inspect_self lists yours), or add this Package to one of them with cordis_define plugin:{kind:\"existing\", pluginId}", c.Plugins)}
	}
	return &Error{Reason: ReasonLimit, Err: c, Message: fmt.Sprintf("this session holds %d Packages over its %d Plugins, the most it may hold (runner.Options.MaxPackagesPerSession); cordis_undefine a Plugin you no longer need to free its Packages (cordis_inspect_self lists each Plugin's packageCount)", c.Packages, c.Plugins)}
}

// checkDefine runs define's checks in the order of docs/dynamic-plugins.md,
// "cordis_define", and returns the Definition.
func (r *Runner) checkDefine(in dynamic.DefineInput) (Definition, error) {
	d := Definition{Name: strings.TrimSpace(in.Name), Purpose: strings.TrimSpace(in.Purpose)}
	switch {
	case d.Name == "":
		return d, refuse(ReasonInvalid, `cordis_define needs a non-empty name: a short readable name for this Package, such as "Clock widget"`)
	case d.Purpose == "":
		return d, refuse(ReasonInvalid, "cordis_define needs a non-empty purpose: one sentence, for the user, saying what this Package does")
	case len(d.Name) > r.opts.MaxNameBytes:
		return d, refuse(ReasonInvalid, "cordis_define: name is %d bytes, more than %d; use a short label and put details in purpose", len(d.Name), r.opts.MaxNameBytes)
	case len(d.Purpose) > r.opts.MaxPurposeBytes:
		return d, refuse(ReasonInvalid, "cordis_define: purpose is %d bytes, more than %d; say in one sentence what the Package does for the user", len(d.Purpose), r.opts.MaxPurposeBytes)
	case in.Code.Host == nil && in.Code.Client == nil:
		return d, refuse(ReasonInvalid, "cordis_define needs code.host, code.client, or both: code.host runs in the host process, code.client in the user's browser page")
	}
	for _, h := range []struct {
		name string
		code *string
		dst  *string
	}{{"code.host", in.Code.Host, &d.Host}, {"code.client", in.Code.Client, &d.Client}} {
		if h.code == nil {
			continue
		}
		if strings.TrimSpace(*h.code) == "" {
			return d, refuse(ReasonInvalid, "cordis_define: %s is blank; omit it for a Package without that half, or give the body of an async function that returns a plugin, such as: return (ctx) => { … }", h.name)
		}
		if c, ok := r.host.(CodeChecker); ok {
			if err := c.Check(h.name, *h.code); err != nil {
				return d, &Error{Reason: ReasonInvalid, Message: "cordis_define: " + err.Error(), Err: err}
			}
		}
		*h.dst = *h.code
	}
	switch in.Plugin.Kind {
	case dynamic.TargetNew:
		d.Prefix = strings.TrimSpace(in.Plugin.IDPrefix)
		if !isPrefix(d.Prefix) {
			return d, refuse(ReasonInvalid, `cordis_define: plugin.idPrefix must be 3–6 lowercase English letters, such as "clock" (the Plugin's id becomes clock-N); got %q`, in.Plugin.IDPrefix)
		}
	case dynamic.TargetExisting:
		d.PluginID = strings.TrimSpace(in.Plugin.PluginID)
		if d.PluginID == "" {
			return d, refuse(ReasonInvalid, `cordis_define: plugin kind "existing" needs pluginId, the Plugin to add this Package to, such as "clock-1" (cordis_inspect_self lists yours); for a new Plugin pass plugin:{kind:"new", idPrefix}`)
		}
	default:
		return d, refuse(ReasonInvalid, `cordis_define: plugin.kind must be "new" (with idPrefix) or "existing" (with pluginId); got %q`, in.Plugin.Kind)
	}
	return d, nil
}
