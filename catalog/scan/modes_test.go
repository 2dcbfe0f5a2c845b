package scan

import (
	"go/constant"
	"go/types"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/kit"
)

// TestModesMatchTheKit checks catalog.Modes, the one table of dispatch modes the scanner,
// the emitters and the docs read, against the code it names: each row's constant, type and
// constructor in package kit and its adapter in package sandbox/bind, with the type
// arguments and adapter parameters its Result and Next say; and the kit has no mode the
// table lacks.
func TestModesMatchTheKit(t *testing.T) {
	const bindPath = "github.com/cordiskit/cordiskit/sandbox/bind"
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedTypes | packages.NeedName}, KitPath, bindPath)
	if err != nil {
		t.Fatal(err)
	}
	scopes := map[string]*types.Scope{}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		scopes[p.PkgPath] = p.Types.Scope()
	}
	kitScope, bindScope := scopes[KitPath], scopes[bindPath]
	modeType := kitScope.Lookup("Mode").Type()

	kitModes := 0
	for _, name := range kitScope.Names() {
		if c, ok := kitScope.Lookup(name).(*types.Const); ok && types.Identical(c.Type(), modeType) {
			kitModes++
		}
	}
	if kitModes != len(catalog.Modes) {
		t.Errorf("package kit declares %d Mode constants, catalog.Modes has %d rows", kitModes, len(catalog.Modes))
	}

	for i, s := range catalog.Modes {
		if got := kit.Mode(i).String(); got != string(s.Mode) {
			t.Errorf("row %d is %q, kit.Mode(%d) is %q", i, s.Mode, i, got)
		}
		if m, ok := s.Mode.Spec(); !ok || m.Const != s.Const {
			t.Errorf("%s.Spec() = %v, %v", s.Mode, m.Const, ok)
		}
		c, ok := kitScope.Lookup(s.Const).(*types.Const)
		if !ok || !types.Identical(c.Type(), modeType) {
			t.Errorf("%s: kit.%s is not a Mode constant", s.Mode, s.Const)
		} else if v, _ := constant.Int64Val(c.Val()); v != int64(i) {
			t.Errorf("%s: kit.%s = %d, want %d (the row's place)", s.Mode, s.Const, v, i)
		}
		if _, ok := kitTypes[s.KitType]; !ok {
			t.Errorf("%s: the scanner does not recognise kit.%s", s.Mode, s.KitType)
		}

		targs := 1
		if s.Result {
			targs = 2
		}
		tn, ok := kitScope.Lookup(s.KitType).(*types.TypeName)
		if !ok {
			t.Errorf("%s: no type kit.%s", s.Mode, s.KitType)
			continue
		}
		named := tn.Type().(*types.Named)
		if n := named.TypeParams().Len(); n != targs {
			t.Errorf("%s: kit.%s has %d type parameters, want %d (Result: %v)", s.Mode, s.KitType, n, targs, s.Result)
		}
		takesKitType := func(sig *types.Signature, param int) bool {
			p, ok := sig.Params().At(param).Type().(*types.Pointer)
			if !ok {
				return false
			}
			n, ok := p.Elem().(*types.Named)
			return ok && n.Origin() == named
		}
		ctor, ok := kitScope.Lookup(s.Constructor).(*types.Func)
		if !ok {
			t.Errorf("%s: no func kit.%s", s.Mode, s.Constructor)
		} else if sig := ctor.Signature(); sig.Results().Len() != 1 || !types.Identical(sig.Results().At(0).Type().(*types.Pointer).Elem().(*types.Named).Origin(), named) {
			t.Errorf("%s: kit.%s does not return a *kit.%s", s.Mode, s.Constructor, s.KitType)
		}

		// bind.OnX(ev *kit.X[…], args Args[P], [to Result[R],] [from From[R]])
		params := 2
		if s.Next {
			params++
		}
		if s.Result {
			params++
		}
		adapter, ok := bindScope.Lookup(s.Adapter).(*types.Func)
		if !ok {
			t.Errorf("%s: no func bind.%s", s.Mode, s.Adapter)
			continue
		}
		sig := adapter.Signature()
		if sig.Params().Len() != params || !takesKitType(sig, 0) {
			t.Errorf("%s: bind.%s is %s, want %d parameters beginning with a *kit.%s (Result: %v, Next: %v)", s.Mode, s.Adapter, sig, params, s.KitType, s.Result, s.Next)
		}
		if s.JSReturn == nil || s.Summary == "" {
			t.Errorf("%s: the row has no JSReturn or Summary", s.Mode)
		}
	}
}
