package kit

// FiberInfo describes one live fiber for inspection.
type FiberInfo struct {
	ID         uint64
	Name       string
	State      State
	Parent     uint64 // 0 for the root
	Session    string // "" for the runtime's own fibers
	Provides   []string
	WaitingFor []string
	Err        error
}

// ServiceInfo describes one provided service for inspection.
type ServiceInfo struct {
	Key        string
	Session    string // the session that sees it; "" for every session (the runtime's own, or shared)
	Owner      string // the providing plugin's name
	OwnerID    uint64
	OwnerState State
}

// Fibers lists every live fiber of the runtime c belongs to, in creation order.
func (c *Context) Fibers() []FiberInfo {
	fibers := c.fiber.root.liveFibers()
	out := make([]FiberInfo, 0, len(fibers))
	for _, f := range fibers {
		out = append(out, f.Info())
	}
	return out
}

// Info describes the fiber.
func (f *Fiber) Info() FiberInfo {
	fi := FiberInfo{ID: f.id, Name: f.name, Session: f.session, State: f.State(), Provides: f.Provides(), WaitingFor: f.WaitingFor(), Err: f.Err()}
	if f.parent != nil {
		fi.Parent = f.parent.id
	}
	return fi
}

// Services lists every provided service of the runtime c belongs to, in the order they
// were provided, including those whose provider is not active.
func (c *Context) Services() []ServiceInfo {
	entries := sortedServices(c.fiber.root)
	out := make([]ServiceInfo, len(entries))
	for i, e := range entries {
		out[i] = ServiceInfo{Key: e.key, Session: e.session, Owner: e.owner.name, OwnerID: e.owner.id, OwnerState: e.owner.State()}
	}
	return out
}

// Children returns the live child fibers of f, in creation order.
func (f *Fiber) Children() []*Fiber {
	var out []*Fiber
	for _, x := range f.root.liveFibers() {
		if x.parent == f {
			out = append(out, x)
		}
	}
	return out
}
