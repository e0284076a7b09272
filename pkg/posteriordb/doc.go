// Package posteriordb reads posteriors of posteriordb, the database of
// Bayesian posteriors with gold-standard reference draws (Magnusson et al.,
// "posteriordb: Testing, Benchmarking and Developing Bayesian Inference
// Algorithms", AISTATS 2025, arXiv 2407.04967; github.com/stan-dev/posteriordb,
// BSD 3-Clause licence, "Copyright (c) 2011-2024, Stan Developers and their
// Assignees"), and compares a method's draws or weighted particles with
// those reference draws.
//
// # Layouts
//
// Open reads either of two layouts, given by the path of its root:
//
//   - Staged: one folder per posterior, named after it, holding
//     posterior.json, model.stan, data.json.zip, reference_draws.json.zip
//     and reference_info.json (the layout of the staged copy of thirteen
//     posteriors this repository's experiments read).
//   - Upstream: posteriordb's own repository, the clone's root or its
//     posterior_database folder: posteriors/NAME.json,
//     models/stan/MODEL.stan, data/data/DATA.json.zip,
//     reference_posteriors/draws/draws/NAME.json.zip and
//     reference_posteriors/draws/info/NAME.info.json, where MODEL, DATA and
//     the reference's NAME are the names posteriors/NAME.json gives.
//
// A posterior's data is one JSON object in a zip archive of one member,
// returned as its fields (map[string]json.RawMessage) for the model that
// binds them (pkg/pdbmodel). Its reference draws are a JSON list of chains,
// each an object mapping a parameter name ("theta[1]", "sigma") to its
// draws in the constrained space, in the order the first chain names them;
// Reference holds them as one matrix, the chains one after the other, with
// the chain boundaries. A posterior without reference draws (posteriordb
// has many) loads with a nil Reference.
//
// # Checksums
//
// The staged posteriors' files are verified: every byte read is hashed and
// compared with the sha256 that the staged folder's README lists (copied
// into sums_gen.go by internal/gen, together with the posteriordb commit
// the files come from, StagedCommit); a file of a staged posterior that
// the table does not list is an error. The table applies to the thirteen
// posteriors it lists only (DB.Checked): another posterior in a folder of
// the staged layout is read unverified, as a clone is, and Files hashes
// its files. A symbolic link to a posterior's folder (or, in posteriordb's
// layout, to its posterior JSON) counts as the posterior. posteriordb's own repository records no checksums of its files
// (its info files name the files, not their hashes), so a clone is read
// unverified: DB.Sums is nil, and Files hashes the files so that a caller
// can key results on the bytes read.
//
// # Errors
//
// Every error names the file (and the zip member) and what is wrong with
// it: a missing file (wrapping fs.ErrNotExist), a sha256 that does not
// match, a file that is not a zip archive or holds no single JSON member,
// malformed JSON at a line, column and byte offset, a posterior.json whose
// name or fields do not fit, reference draws whose names are not
// posterior.json's dimensions, non-numeric draws and ragged chains.
//
// # Limits
//
// A hostile or corrupt file fails its load with an error rather than
// exhausting memory. Only regular files are read, of at most 64 MiB each,
// and a zip member of at most 64 MiB unzipped (the staged posteriors'
// largest member unzips to 5.1 MB). reference_info.json is read before the
// draws: its ndraws and nchains give their shape, which must have at least
// 2 draws per chain and no more values of posterior.json's dimensions than
// the unzipped draws file can hold (two bytes a value). The draws are then
// decoded streaming, token by token, straight into a matrix of that shape,
// so that memory is the matrix and a buffer; a chain, a parameter's list
// or the list of chains longer or shorter than the shape is an error at
// its place in the file, and so is a draw beyond ±1e150, whose square
// summed over the draws could overflow the reference's moments.
//
// # Comparing with the reference
//
// A Comparison summarises the reference once (per parameter j its mean
// m_j, sample standard deviation s_j and Monte Carlo standard error
// MCSE_j = s_j/√ESS_j, from the raw split chains' ESS as Stan's mcse_mean),
// and then scores any weighted set of n constrained draws xᵢ with weights
// wᵢ (nil: 1/n). With W = Σᵢ wᵢ, the set's mean and standard deviation are
//
//	x̄_j = Σᵢ wᵢ xᵢⱼ / W,   σ̂_j = √(Σᵢ wᵢ (xᵢⱼ − x̄_j)² / W),
//
// and per parameter
//
//	mean error   e_j = |x̄_j − m_j| / s_j
//	mean z       z_j = |x̄_j − m_j| / √(MCSE_j² + MCSE'_j²)
//	sd ratio     r_j = σ̂_j / s_j
//
// where MCSE'_j is the set's own Monte Carlo standard error when its method
// has one (given directly, or as an ESS: σ̂_j/√ESS'_j) and 0 otherwise, so
// that z_j then asks whether the difference stands out of the reference's
// own noise. posteriordb's own validation of a new algorithm compares the
// same three, and distribution distances such as the MMD below.
//
// The squared MMD is taken on draws standardised by the reference,
// uⱼ = (xⱼ − m_j)/s_j, so that no parameter's scale dominates, with the RBF
// kernel k(u, v) = exp(−‖u − v‖²/(2h²)) whose bandwidth h is the median
// distance between distinct pairs of at most 1,000 standardised reference
// draws spread evenly over every chain:
//
//	MMD² = Σᵢⱼ wᵢwⱼ k(uᵢ, uⱼ) − (2/S) Σᵢ Σₛ wᵢ k(uᵢ, vₛ) + (1/S²) Σₛₜ k(vₛ, vₜ),
//
// the V-statistic of pkg/metric (weights as given, not normalised) against
// the S reference draws vₛ used (all of them, or CompareSettings.MMDDraws
// spread evenly over every chain). The reference term is computed once, in
// NewComparison; each call then costs O(n²d + nSd).
//
// The floors say what the reference can resolve: the same quantities
// between the first half of the reference's chains and the second (chains
// 1–5 against 6–10 of posteriordb's ten; a single chain is cut into its
// halves): the second half scored as a method's draws against the first
// half as the reference, with both halves' MCSEs in z and the whole
// reference's sd in the mean error (Comparison.Floor). An exact sampler with as many draws as
// a half scores about the floor; no method can be told from the posterior
// below it with this reference.
//
// Cost for posteriordb's S = 10,000 draws in d dimensions: NewComparison
// evaluates the kernel on S(S+1)/2 pairs for the reference term and on
// (S/2)(S/2+1) + (S/2)² pairs for the floor, about 1.0·10⁸ in all (each a
// d-term distance and an exponential, in blocked matrix products), once per
// posterior; each MMD² of n particles then costs n(n+1)/2 + nS pairs
// (10⁶ for n = 100), and the moments O(nd).
package posteriordb

//go:generate go run ./internal/gen -src ../../../shared/posteriordb -o sums_gen.go
