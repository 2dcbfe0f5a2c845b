// Package agent is the runtime of the example harness: a small but real Go agent runtime
// built on the cordiskit kit. It declares its own events and services the way a runtime
// author would, so gen-cordis-api can catalogue them and model-written plugins can use
// them through the generated façade.
//
// The first calls:
//
//	rt, err := agent.New(&agent.Options{WorkDir: dir, StateDir: state}) // boots the kit root and the services
//	defer rt.Close(ctx)
//	turn := rt.BeginTurn("s1", "list the files")          // emits agent/turn-start
//	out, err := rt.CallTool(ctx, "s1", name, args)         // tools/pre-execute, then the tool
//	err = rt.Flush(ctx, "s1", "end of turn")               // session/flush (kv is saved)
//
// # Events
//
//   - agent/turn-start (emit): a turn began.
//   - tools/pre-execute (waterfall): every tool call passes through it; a listener may
//     rewrite the arguments or veto the call. Listeners that mounts wrote never see the
//     cordis control tools' calls (SetGateContext).
//   - session/flush (parallel): persist what the session holds; awaited.
//
// # Services
//
//   - fs (abstract seam, FileSystem): files under the work directory; DirFS is the
//     implementation the runtime provides, and it rejects every path that leaves the root
//     and everything that is not a regular file or a directory (FIFOs, sockets, devices).
//   - exec (*Executor): runs commands in the work directory with a timeout, each in its
//     own process group, which is killed when the command ends or its caller goes away.
//   - kv (*Store): a small synchronous string store of at most MaxKVBytes, saved to the
//     state directory (Options.StateDir, outside the work directory, so no service serves
//     it) on session/flush and loaded again at boot; a state file it cannot load is set
//     aside, never a reason not to boot.
//
// Services whose methods take a context.Context first are async in JavaScript (they
// return a Promise); the others are synchronous.
//
// Nothing here is a sandbox: a plugin that injects exec can run any program the host
// user can. The fs root is a real boundary for fs, not for exec.
package agent
