// normal_invgamma: a normal sample with unknown mean and variance under
// the conjugate normal-inverse-gamma prior. Its posterior is again
// normal-inverse-gamma, so its reference draws are exact.
data {
  int<lower=1> N;
  vector[N] y;
}
parameters {
  real mu;
  real<lower=0> sigma2;
}
model {
  sigma2 ~ inv_gamma(3, 2);
  mu ~ normal(0, sqrt(sigma2 / 1));
  y ~ normal(mu, sqrt(sigma2));
}
