package pdbmodel

// RegisterForTest adds the builder b under the model name, as the models
// of this package register themselves, and returns a function that removes
// it again. It lets the tests of code that builds models by name (a
// posteriordb dataset of the experiment wiring, say) run with a model of
// their own, such as a Gaussian whose reference draws are exact. It panics
// when name is taken. It must not run concurrently with New or Names:
// register before the models are used, remove after.
//
// A program that runs a model of its own registers it on its registry
// instead (pkg/repro's RegisterPosteriorModel), where it reaches no other
// registry and its version enters the cache keys.
func RegisterForTest(name string, b Builder) (remove func()) {
	register(name, b)
	return func() { delete(builders, name) }
}
