// Command exports lists the names a package of the module exports that no
// other package of the module uses: a func, type, var or const at package
// level, or a method of an exported type that satisfies no interface. A
// name another package's tests use has a user; the package's own tests,
// in it or beside it (package x_test), do not count. Struct fields and
// main packages are out of scope.
//
//	go run ./internal/tools/exports [-C dir]
//
// prints one "package name" line per unused name and exits 1 when there
// is any. This package's test holds the module to it, with a dated list
// of the names some packages may still export for now.
package main

import (
	"flag"
	"fmt"
	"go/types"
	"maps"
	"os"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

func main() {
	dir := flag.String("C", ".", "a folder of the module")
	flag.Parse()
	found, err := unused(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "exports:", err)
		os.Exit(2)
	}
	for _, p := range slices.Sorted(maps.Keys(found)) {
		for _, n := range found[p] {
			fmt.Println(p, n)
		}
	}
	if len(found) > 0 {
		os.Exit(1)
	}
}

// unused loads every package of the module that holds dir, with its
// tests, and returns per package (its path in the module, "formats/grammar")
// the exported names that no other package uses, sorted: "Name" or
// "Type.Method".
func unused(dir string) (map[string][]string, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
			packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule,
		Tests: true,
		Dir:   dir,
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("loading the module: %w", err)
	}
	var errs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			errs = append(errs, e.Error())
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("loading the module: %s", strings.Join(errs, "; "))
	}
	mod := ""
	for _, p := range pkgs {
		if p.Module != nil && p.Module.Main {
			mod = p.Module.Path
			break
		}
	}
	if mod == "" {
		return nil, fmt.Errorf("no main module under %s", dir)
	}

	// used: "path name" and "path Type.Method" of every module object
	// another package names.
	used := map[string]bool{}
	for _, p := range pkgs {
		user := strings.TrimSuffix(p.PkgPath, "_test")
		for _, obj := range p.TypesInfo.Uses {
			if k, ok := key(obj); ok && obj.Pkg().Path() != user {
				used[k] = true
			}
		}
	}

	ifaces := interfaces(pkgs)
	found := map[string][]string{}
	for _, p := range pkgs {
		if p.ID != p.PkgPath || p.Name == "main" || !strings.HasPrefix(p.PkgPath+"/", mod+"/") {
			continue // a test variant, a command, or not the module's
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, mod), "/")
		if rel == "" {
			rel = "."
		}
		var names []string
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if obj.Exported() && !used[p.PkgPath+" "+name] {
				names = append(names, name)
			}
			tn, ok := obj.(*types.TypeName)
			if !ok || !obj.Exported() || tn.IsAlias() {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok || types.IsInterface(named) {
				continue
			}
			for m := range named.Methods() {
				k := p.PkgPath + " " + name + "." + m.Name()
				if m.Exported() && !used[k] && !satisfies(named, m.Name(), ifaces) {
					names = append(names, name+"."+m.Name())
				}
			}
		}
		if len(names) > 0 {
			slices.Sort(names)
			found[rel] = names
		}
	}
	return found, nil
}

// key names a package-level object or a method as used says it:
// "path Name" or "path Type.Method"; a struct field or a local is no key.
func key(obj types.Object) (string, bool) {
	if obj == nil || obj.Pkg() == nil || !obj.Exported() {
		return "", false
	}
	switch o := obj.(type) {
	case *types.Func:
		o = o.Origin()
		recv := o.Signature().Recv()
		if recv == nil {
			return o.Pkg().Path() + " " + o.Name(), true
		}
		t := recv.Type()
		if ptr, ok := t.(*types.Pointer); ok {
			t = ptr.Elem()
		}
		named, ok := t.(*types.Named)
		if !ok {
			return "", false
		}
		return o.Pkg().Path() + " " + named.Origin().Obj().Name() + "." + o.Name(), true
	case *types.Var:
		if o.IsField() || o.Parent() != o.Pkg().Scope() {
			return "", false
		}
	case *types.TypeName:
		if o.Parent() != o.Pkg().Scope() {
			return "", false
		}
	case *types.Const:
		if o.Parent() != o.Pkg().Scope() {
			return "", false
		}
	default:
		return "", false
	}
	return obj.Pkg().Path() + " " + obj.Name(), true
}

// interfaces indexes by method name every named, non-generic interface of
// the packages loaded and of all they import: the standard library's
// (fmt.Stringer, error, json.Marshaler, http.Handler, io.Reader, …), the
// dependencies' (pflag.Value) and the module's own (model.Store).
func interfaces(pkgs []*packages.Package) map[string][]*types.Interface {
	byMethod := map[string][]*types.Interface{}
	seen := map[*types.Package]bool{}
	var walk func(tp *types.Package)
	walk = func(tp *types.Package) {
		if tp == nil || seen[tp] {
			return
		}
		seen[tp] = true
		scope := tp.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok || named.TypeParams().Len() > 0 {
				continue
			}
			it, ok := named.Underlying().(*types.Interface)
			if !ok || it.NumMethods() == 0 {
				continue
			}
			for m := range it.Methods() {
				byMethod[m.Name()] = append(byMethod[m.Name()], it)
			}
		}
		for _, imp := range tp.Imports() {
			walk(imp)
		}
	}
	for _, p := range pkgs {
		walk(p.Types)
	}
	// error is no package's: Error satisfies it.
	byMethod["Error"] = append(byMethod["Error"], types.Universe.Lookup("error").Type().Underlying().(*types.Interface))
	// errors.Is, errors.As and errors.Unwrap ask for these through
	// interfaces they never name.
	for _, m := range []string{"Unwrap() error", "Unwrap() []error", "Is(error) bool", "As(any) bool"} {
		byMethod[m[:strings.IndexByte(m, '(')]] = append(byMethod[m[:strings.IndexByte(m, '(')]], anonymous(m))
	}
	return byMethod
}

// anonymous is the interface of one method, "Name(params) results", as
// errors declares it in a type assertion.
func anonymous(method string) *types.Interface {
	name, sig, _ := strings.Cut(method, "(")
	params, results, _ := strings.Cut(sig, ")")
	tuple := func(s string) *types.Tuple {
		var vars []*types.Var
		for _, t := range strings.Split(strings.TrimSpace(s), ",") {
			if t = strings.TrimSpace(t); t == "" {
				continue
			}
			var typ types.Type
			switch t {
			case "error":
				typ = types.Universe.Lookup("error").Type()
			case "[]error":
				typ = types.NewSlice(types.Universe.Lookup("error").Type())
			case "bool":
				typ = types.Typ[types.Bool]
			case "any":
				typ = types.Universe.Lookup("any").Type()
			}
			vars = append(vars, types.NewParam(0, nil, "", typ))
		}
		return types.NewTuple(vars...)
	}
	fn := types.NewFunc(0, nil, name, types.NewSignatureType(nil, nil, nil, tuple(params), tuple(results), false))
	return types.NewInterfaceType([]*types.Func{fn}, nil).Complete()
}

// satisfies says whether method name of t is there because t (or *t)
// implements an interface that has it.
func satisfies(t *types.Named, name string, ifaces map[string][]*types.Interface) bool {
	ptr := types.NewPointer(t)
	for _, it := range ifaces[name] {
		if types.Implements(t, it) || types.Implements(ptr, it) {
			return true
		}
	}
	return false
}
