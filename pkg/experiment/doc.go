// Package experiment wires the method, model, data and metric packages into
// the harness: Register fills a registry with everything the files under
// experiments/ name (importing the package registers nothing).
//
// # Datasets
//
// covertype is Bayesian logistic regression (model.Logistic) on the seeded
// 80/20 split of pkg/data, the split index being the seed; the full UCI file
// when present in the data folder, else the staged 20,000-row prefix, whose
// label "Covertype (20,000-row prefix)" every cell writes into its
// provenance summary (dataset_label, dataset_subset). Every UCI regression
// set is a one-hidden-layer ReLU BNN (model.BNN) with 50 units, 100 for
// year-prediction-MSD, on the shipped PBP split of that index. gauss2d and
// gauss10d are exact Gaussian targets N(m, Σ) with m ~ N(0, I) and Σ = Q
// diag(λ) Qᵀ, λ log-uniform on [½, 2], from fixed seeds.
//
// Every dataset's Problem.Model is a Model: LogisticData, BNNData or
// GaussData (each embedding Info, which is itself the Model of a posterior
// with nothing beside it). The metrics and method kinds ask a Model what
// they need (its predictive check, its own start, an exact form, a
// network), never its type; a new model embeds Info and overrides what it
// has.
//
// posteriordb.<posterior> is a posterior of posteriordb (pkg/posteriordb),
// read from the folder PosteriorDB names (SetPosteriorDB, the commands'
// --posteriordb flag; else $MMDFW_POSTERIORDB; else ../shared/posteriordb):
// its model from pkg/pdbmodel on the unconstrained space, bound to its data
// (PDBData), whose own start is Stan's, uniform on [−2, 2] per coordinate.
// Its splits are seeds. A posterior whose model pkg/pdbmodel lacks, or that
// the folder lacks, is harness.ErrDataMissing ("model not available").
//
// An experiment file may also declare datasets of its own from CSV files
// in [data.NAME] tables (CSVData): logistic regression on a class column
// (model = "logistic", positive = the class +1) or a BNN on a numeric one
// (model = "bnn", hidden units, 50 by default), with seeded train-fraction
// splits or PBP-layout split files; see examples/own-data. A program
// may register a model of its own for them (RegisterCSVModel: model = its
// name), and posteriordb models for the posteriordb datasets
// (RegisterPosteriorModel); both are kept on the registry (its
// Extension), so that they reach no other.
//
// The data folder is the runner's (harness.Options.DataDir, default
// "data"; the commands' --data-dir flag, whose default is $MMDFW_DATA),
// which the loaders and checksums read through harness.Env.DataDir. A
// dataset absent from it is harness.ErrDataMissing: its cells are skipped,
// never failed and never run on other data. The cache key of a cell holds
// the registered sha256 of every file it may read (pkg/data); the loaders
// hash every byte they read.
//
// # Methods
//
// Kinds mmdfw, svgd, sgld, sp and hmc (the reference) decode their settings
// table strictly into the method package's own Settings (its TOML names,
// text enumerations, defaults and Validate), embedded in a struct of this
// package (MMDFWConfig, SVGDConfig, SGLDConfig, SPConfig, HMCConfig) that
// adds only where the run starts (map, model, prior…) and, for mmdfw, the
// SVGD run of the SVGD→MMD-FW combination. The wiring sets the cell's
// particle count N, its thread budget (Workers) and its random source. The
// JSON form of these structs is the cells' cache-key input, pinned by a
// test against the keys of the committed results.
//
// A MAP point (laplace.FindMAP: L-BFGS on the full-data log posterior from
// the origin) is computed once per dataset split as a shared artefact; a
// method that starts from it is charged its seconds and gradient
// evaluations on every snapshot, as if it had computed it itself. The
// BNN's non-MAP start
// is model.BNN.Init, the SVGD reference code's initialisation, for SVGD and
// MMD-FW alike. SVGD may also start from draws of the Laplace approximation
// at the MAP (init = "laplace"; the MAP and the fit are charged); on the
// logistic regression init = "reference" starts as the reference logistic
// script does (InitReference). MMD-FW's
// start = "trained" starts at a network trained from one model.BNN.Init
// draw by optim.Train on the training rows less a seeded fifth
// (TrainValidationFraction), early-stopped on that fifth's RMSE: a shared
// artefact (Net), computed once per dataset, split, member and train_*
// settings from a seed of its own, and charged at its recorded cost to
// every cell that reads it; its per-coordinate scales then set the
// candidates' noise and LMO steps. SVGD's init = "trained" reads the same
// network and draws its particles θ* + init_noise·σ⊙ε around it in the
// training's per-coordinate scales.
//
// Kind start (StartConfig) reports the starts themselves as answers, so
// that a method is credited only with what it adds to its start: start =
// "trained" (the trained network alone), "ensemble" (a deep ensemble of up
// to N of the shared networks, members 0, 1, …, from independent Init draws,
// equal weights, a snapshot after each), "map" (the shared MAP alone) and
// "laplace" (N draws of the Laplace approximation at the MAP), each with
// its cost charged, evaluated by the same recorder as every kind.
//
// Kind svgd-anchor (SVGDAnchorConfig) runs the SVGD reference code's
// network protocol exactly: development rows held out of the training rows,
// the rest standardised again, sequential minibatches, log γ re-selected on
// the development rows; its particles are mapped back into the cell's
// standardisation. Kinds ols and constant (BaselineConfig) are closed-form
// floors reported as one exact ReLU particle.
//
// An experiment whose eval.rows is "validation" or "development" (see
// harness) gets problems built by carve: ValidationRows names the held-out
// training rows, the model gets the others, the metrics below evaluate the
// held-out ones in place of the test rows, and the test rows are dropped.
//
// # Metrics
//
// The held-out metrics read the experiment's evaluation rows: the test rows
// of the split, or the held-out training rows of eval.rows.
//
//	accuracy    test accuracy of the weighted predictive Σᵢ wᵢ σ(y θᵢᵀx)
//	test_ll     mean test log-likelihood of the weighted predictive
//	            (logistic; BNN on the original scale of y)
//	rmse        BNN test RMSE of Σᵢ wᵢ ŷᵢ(x), original scale of y
//	mmd2        ‖μ̂ − μ_ref‖²_H against the experiment's reference draws,
//	            exact on a Gaussian target
//	mmd2_exact  ‖μ̂ − μ_p‖²_H in closed form (Gaussian targets)
//	fmmd2       the BNN's MMD² in function space: ‖μ̂_f − μ_f,ref‖²_H
//	            between the output vectors (f_θ(x₁), …, f_θ(x_T)) at the
//	            first T = 100 evaluation rows, weighted particles against
//	            the reference draws
//	ksd2        Σᵢⱼ wᵢwⱼ k₀(xᵢ, xⱼ), IMQ base kernel, full-data scores
//
// On posteriordb datasets, against posteriordb's reference draws in their
// constrained space (each particle mapped through the model's Constrain;
// pkg/posteriordb's Comparison, formulas in its documentation):
//
//	pdb_mmd2          MMD² on draws standardised by the reference's means
//	                  and sds, RBF kernel, median heuristic, all 10,000 draws
//	pdb_mean_err      maxⱼ |x̄ⱼ − mⱼ| / sⱼ
//	pdb_mean_z        maxⱼ |x̄ⱼ − mⱼ| / MCSEⱼ of the reference
//	pdb_sd_ratio_min  minⱼ σ̂ⱼ / sⱼ
//	pdb_sd_ratio_max  maxⱼ σ̂ⱼ / sⱼ
//
// with their floors (the reference's second half of chains scored against
// its first) in every cell's summary under reference.floors.
//
// mmd2 uses one RBF kernel per dataset split: its bandwidth h is the median
// distance between distinct pairs of at most 1000 reference draws, the same
// number from every chain evenly spread over each chain (the draws are
// stored iteration-major, so an even stride over the pooled rows would see
// one chain only), fixed before any method runs, so that every method of an
// experiment is measured with the same kernel; on a Gaussian target h is the
// same heuristic on 2000 exact draws from a fixed seed. fmmd2 takes its
// bandwidth the same way from the reference's output vectors; it does not
// change when a particle's hidden units are permuted, which mmd2 in
// parameter space does. The reference (kind, number of draws and chains,
// bandwidth and the sampler's diagnostics: max R̂, min ESS, flagged and its
// reasons, per-chain acceptance, divergences and step size) goes into every
// cell's provenance summary under "reference", with
//
//	floors       by metric (mmd2, fmmd2): the within-reference MMD², the
//	             first half of every chain's draws against the second half
//	             in that metric's kernel, the level below which a method
//	             cannot be told from the posterior with this reference
//	predictions  (fmmd2) the split-R̂ and bulk ESS of the outputs per
//	             input, as max R̂ and min ESS, flagged by the thresholds of
//	             the HMC reference (R̂ > 1.01, ESS < 400)
package experiment
