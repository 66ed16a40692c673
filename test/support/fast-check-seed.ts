import fc from 'fast-check';

/**
 * The property tests run on one fixed seed, so a commit's test run gives the same result every
 * time: a random seed per run made a red CI run that no later run could repeat, for a fault the
 * commit did not bring (a counterexample found on the 2,315th case of one run in thousands). Each
 * counterexample found is fixed and kept as a test of its own. To search further, run with
 * FC_SEED=random (or a number, to replay a seed a failure printed): `FC_SEED=random npm run check`.
 */
const given = process.env.FC_SEED;
if (given !== 'random') fc.configureGlobal({ seed: given ? Number(given) : 20_261_204 });
