// Package page is the protocol the dynamic-plugin runner speaks with the pages that show
// it to a person (docs/dynamic-plugins.md, "Verbs"): the arguments of every verb the
// runner answers, the answers that carry no stored record (runHostHalf's HostHalfResult,
// getClientCode's ClientCode, the Accepted of an answer to something a page was asked),
// the refusal codes a page and a model branch on, and the secrets that authorise an
// anonymous page. Answers made of the runner's stored records (the inventory, a review,
// the grants) are the runner's types.
//
// A runtime author rarely names it: the runner's page verbs (runner.Runner.RunHostHalf,
// …) take and return these types, and package panel serves them over HTTP. A page of
// your own decodes its answers into them:
//
//	res := r.RunHostHalf(ctx, page.RunHostHalfArgs{Session: s, PluginID: id, PackageID: pkg, Mode: dynamic.ModeRun})
//	if !res.OK && res.Reason == page.ReasonNotAuthorised { … }
//
// # Refusals
//
// A refusal is an *Error: a Reason ("plugin-missing", …) and a message that says what went
// wrong and the exact next step. ReasonOf finds the Reason in an error's chain; the wire
// carries it as the answer's code. The runner's verbs and its inspect registry
// (runner/inspect) refuse with the same list, so a page or a model branches on one set of
// codes whichever room answered.
//
// # Secrets
//
// Ids are predictable (approval-N, run-N), so what authorises a page is a secret only a
// page that took part holds: a run request's ticket, the token runHostHalf returns to the
// page that started a run, a run's capability, a connected page's id. NewSecret mints
// one; SameSecret compares two in constant time, so a guess learns nothing from how long
// its refusal took, and a secret never minted (empty) authorises nobody. The runner
// compares every secret a page presents with it.
package page
