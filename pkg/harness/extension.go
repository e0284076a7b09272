package harness

// Extension returns the value kept on r under key, made by create on the
// first call with that key (later calls return the same value; create may
// be nil when the caller knows the value exists). It lets the package that
// fills a registry keep state of its own per registry, such as the models
// its dataset families build, instead of in a global: a program that
// builds two registries gets two values. key should be a value of an
// unexported type of the calling package, as a context.Context key is.
func (r *Registry) Extension(key any, create func() any) any {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.ext[key]; ok {
		return v
	}
	if create == nil {
		return nil
	}
	if r.ext == nil {
		r.ext = map[any]any{}
	}
	v := create()
	r.ext[key] = v
	return v
}
