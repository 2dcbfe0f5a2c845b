package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
)

// PendingRequests returns the run requests of scope that are pending, oldest first, each
// as its RequestRun event announced it, ticket included: a request is pending from its
// announcement until RequestRunResolved reports how it ended, including while the page
// that started it loads its client half. The zero scope lists nothing.
//
// A request is announced once, when it is made, and its ticket travels only in that
// event, so whatever was not listening then learns of it here: a UI of the runtime's own
// that starts after New (New announces the run requests of RestartAtBoot before it
// returns), or Go code that approves or starts a request itself (RunHostHalf with the
// ticket). The panel lists them when it is created and offers them to every page that
// connects. A ticket authorises starting or declining its request: hand it only to the
// request's session (RequestRunEvent.Session) or to an operator.
func (r *Runner) PendingRequests(ctx context.Context, scope InventoryScope) ([]RequestRunEvent, error) {
	if !scope.Every && scope.Session == "" {
		return []RequestRunEvent{}, nil
	}
	r.mu.Lock()
	var qs []request
	for _, l := range r.live {
		// A direct run from the panel waits for its page with no id: nothing announced it.
		if q := l.req; q != nil && q.id != "" && (scope.Every || q.session == scope.Session) {
			qs = append(qs, *q)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(qs, func(a, b request) int { return cmp.Or(cmp.Compare(len(a.id), len(b.id)), cmp.Compare(a.id, b.id)) })
	out := make([]RequestRunEvent, 0, len(qs))
	for _, q := range qs {
		p, err := r.store.Plugin(ctx, q.pluginID)
		if errors.Is(err, ErrNotFound) {
			continue // undefined since: its request was cancelled
		}
		if err != nil {
			return nil, fmt.Errorf("runner: listing the pending run requests: reading %s: %w", q.pluginID, err)
		}
		k, _ := p.Package(q.pkg) // a Package is never removed alone
		out = append(out, RequestRunEvent{RequestID: q.id, Ticket: q.ticket, Session: q.session, PluginID: q.pluginID, PackageID: q.pkg,
			Mode: q.mode, Name: k.Name, Purpose: k.Purpose, RequiresApproval: q.requiresApproval, HasClientHalf: q.hasClient})
	}
	return out, nil
}
