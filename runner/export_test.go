package runner

import "testing"

// StoreEnvForTests and SetTestStore let the external test package plug the SQL store in.
const StoreEnvForTests = storeEnv

// SetTestStore makes newEnv open every runner on the store open returns.
func SetTestStore(open func(t *testing.T) Store) { testStore = open }

// RunSuiteHook runs the suite in a child process; set by the external test package.
var RunSuiteHook func(t *testing.T)

func runSuiteOnSQLStore(t *testing.T) {
	if RunSuiteHook == nil {
		t.Fatal("the external test package did not register its suite runner")
	}
	RunSuiteHook(t)
}
