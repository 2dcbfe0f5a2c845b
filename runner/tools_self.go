package runner

import (
	"context"
	"strings"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// InspectSelf is cordis_inspect_self for the calling session: every Plugin (no ids, mode
// "plugins", with the messages kept for the session while it was not connected), one
// Plugin with its Packages (pluginId, mode "plugin"), or one Package with its source and
// its halves' state (pluginId and packageId, mode "package"). Every mode carries the
// latest run with its diagnostic. Its checks run in this order: a packageId needs a
// pluginId, the Plugin must be this session's, the Package must be the Plugin's.
func (r *Runner) InspectSelf(ctx context.Context, in dynamic.InspectSelfInput) (dynamic.InspectSelfOutput, error) {
	pluginID, packageID := strings.TrimSpace(in.PluginID), strings.TrimSpace(in.PackageID)
	if packageID != "" && pluginID == "" {
		return dynamic.InspectSelfOutput{}, refuse(ReasonInvalid, `cordis_inspect_self: packageId %q needs the pluginId it belongs to; pass both (cordis_inspect_self {} lists your Plugins, {pluginId} a Plugin's Packages)`, packageID)
	}
	if pluginID == "" {
		return r.selfPlugins(ctx)
	}
	session, err := r.session(ctx)
	if err != nil {
		return dynamic.InspectSelfOutput{}, err
	}
	p, err := r.owned(ctx, session, pluginID)
	if err != nil {
		return dynamic.InspectSelfOutput{}, err
	}
	s := r.summary(p.Listing())
	if packageID == "" {
		s.Packages = packageInfos(p)
		return dynamic.InspectSelfOutput{Mode: dynamic.SelfPlugin, Plugin: &s}, nil
	}
	k, ok := p.Package(packageID)
	if !ok {
		return dynamic.InspectSelfOutput{}, refuse(ReasonPackageMissing, "package %q does not exist on plugin %s; cordis_inspect_self {pluginId:%q} lists its packages", packageID, p.ID, p.ID)
	}
	return dynamic.InspectSelfOutput{Mode: dynamic.SelfPackage, Plugin: &s, Package: r.packageDetail(ctx, p, k, s)}, nil
}

// selfPlugins is the listing: every Plugin of the session and its kept messages.
func (r *Runner) selfPlugins(ctx context.Context) (dynamic.InspectSelfOutput, error) {
	ls, err := r.listings(ctx)
	if err != nil {
		return dynamic.InspectSelfOutput{}, err
	}
	runs := r.activeRuns(ls)
	plugins := make([]dynamic.PluginSummary, 0, len(ls))
	for i, l := range ls {
		plugins = append(plugins, r.summarize(l, runs[i]))
	}
	out := dynamic.InspectSelfOutput{Mode: dynamic.SelfPlugins, Plugins: &plugins}
	session, _ := r.session(ctx)
	for _, m := range r.Messages(session) {
		out.Messages = append(out.Messages, dynamic.Message{Kind: m.Kind, PluginID: m.PluginID, Text: m.Text})
	}
	return out, nil
}
