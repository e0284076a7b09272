// Package data is the dataset layer of the reproduction: a registry of every
// file the experiments read, with its sha256, size, format and upstream
// URLs; parsers for the UCI covtype CSV, the PBP regression layout and the
// YearPredictionMSD CSV; fetching from a mirror folder or the network; and
// loaders that split and scale exactly as the experiments need.
//
// Every byte a loader reads is hashed in the same pass and checked against
// the registry (sources_gen.go is generated from the SOURCE.md tables of the
// staged mirror; see internal/gen), so a result can name the exact files it
// came from (Classification.Files, Regression.Files) and a cache keyed on
// them cannot go stale.
//
// Covertype (Bayesian logistic regression). Rows are permuted by a PCG
// stream seeded with the split seed; the first ⌈0.2·n⌉ rows of the
// permutation are the test set. With the training minimum mᵢ and maximum Mᵢ
// of feature i,
//
//	x′ᵢ = (xᵢ − mᵢ) / (Mᵢ − mᵢ)    (Mᵢ = mᵢ: divide by 1)
//
// and a last column of ones is the bias, giving 54 + 1 = 55 columns. The
// class label c ∈ {1,…,7} becomes y = −1 for c = 2 (Lodgepole Pine) and
// y = +1 otherwise. When only the staged 20,000-row prefix is present the
// result has Subset set and Label "Covertype (20,000-row prefix)".
//
// UCI regression (Bayesian neural network). Split k uses the shipped PBP
// index files index_train_k.txt / index_test_k.txt (0-based rows of
// data.txt). With the training mean μⱼ and population standard deviation
// σⱼ of column j,
//
//	x′ⱼ = (xⱼ − μⱼ) / σⱼ    y′ = (y − μ_y) / σ_y    (σ = 0: divide by 1)
//
// Regression keeps μ_y and σ_y so that predictions go back to the scale of
// y, where RMSE and test log-likelihood are reported: ŷ = σ_y·ŷ′ + μ_y.
// YearPredictionMSD has one fixed split: its first 463,715 rows train, the
// last 51,630 test, the year (column 0) is the target.
//
// A CSV file of one's own (ReadCSVFile) is read only when it is a regular
// file of at most DefaultMaxCSVBytes (256 MiB, or a caller's limit), each
// line at most MaxCSVLine (1 MiB): a device, a FIFO, a larger file or a
// longer line is an error naming the file (and the line), never a read
// without end. Split index files are bounded likewise by the table's rows,
// and a registered data set's files must be regular files, read no further
// than one byte past their registered size.
package data
