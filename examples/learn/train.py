"""Train the card play of ``policy.py``'s linear softmax policy by policy gradient (REINFORCE
with a running-mean baseline) on :class:`spades_sim.env.BatchEnv`, NumPy only.

The learner holds both partner seats (0 and 2) of classic four-player tables; `heuristic`
plays seats 1 and 3 inside the engine. The learner bids by the counting rule in ``policy.py``
(not learned) and plays a card sampled from the softmax over its legal cards. An episode is
one hand; its return is the learner side's score change for the hand less the opponents', in
hundreds of points (what a duplicate match measures), each bag charged 10 points (its share
of the bag penalty, see ``shaped``), and every card decision of the hand shares it. The
gradient of a batch of finished hands is the mean of
``(return - baseline) * sum of grad log pi(card)`` over them; Adam takes the step.

    python examples/learn/train.py --out examples/learn/weights.npz
    python examples/learn/train.py --out /tmp/tiny.npz --hands 2000 --tables 256

The same arguments give the same weights: the deals come from ``--seed`` through the engine's
streams and the card draws from a NumPy generator seeded with it.
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from policy import FEATURES, N_FEATURES, card_features, counting_bids, probabilities  # noqa: E402

from spades_sim.core.view import V_PHASE  # noqa: E402
from spades_sim.env import BatchEnv  # noqa: E402

BID_OFFSET = 54  # environment action of bid 0


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="where to save the weights (.npz)")
    parser.add_argument("--hands", type=int, default=300_000, help="hands to train on")
    parser.add_argument("--tables", type=int, default=1024, help="tables stepped together")
    parser.add_argument("--batch-hands", type=int, default=2048,
                        help="finished hands per gradient step")
    parser.add_argument("--learning-rate", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args(argv)
    for name in ("hands", "tables", "batch_hands"):
        if getattr(arguments, name) < 1:
            parser.error(f"--{name.replace('_', '-')}: {getattr(arguments, name)} is not >= 1")
    if not arguments.learning_rate > 0:
        parser.error(f"--learning-rate: {arguments.learning_rate} is not > 0")
    return arguments


class Adam:
    def __init__(self, size, learning_rate, beta1=0.9, beta2=0.999, epsilon=1e-8):
        self.moment1 = np.zeros(size)
        self.moment2 = np.zeros(size)
        self.learning_rate, self.beta1, self.beta2, self.epsilon = (learning_rate, beta1, beta2,
                                                                    epsilon)
        self.steps = 0

    def ascend(self, weights, gradient):
        self.steps += 1
        self.moment1 = self.beta1 * self.moment1 + (1 - self.beta1) * gradient
        self.moment2 = self.beta2 * self.moment2 + (1 - self.beta2) * gradient ** 2
        corrected1 = self.moment1 / (1 - self.beta1 ** self.steps)
        corrected2 = self.moment2 / (1 - self.beta2 ** self.steps)
        return weights + self.learning_rate * corrected1 / (np.sqrt(corrected2) + self.epsilon)


def shaped(score_changes):
    """The score changes with each bag charged its share of the bag penalty, -10 points (classic:
    -100 every 10 bags). A hand of ``BatchEnv`` starts from no bags, so the penalty itself never
    comes; without this charge the policy learns to take overtricks (+1 point each). Bags are
    the units digit: contracts and nils score in tens, each overtrick 1."""
    points = np.rint(score_changes).astype(np.int64)
    return (points - 10 * (points % 10)).astype(np.float64)


def train(hands, tables, batch_hands, learning_rate, seed, report=print):
    """Train for ``hands`` finished hands; returns ``(weights, history)``, history a list of
    ``(hands, mean score difference a hand in the last batch)``."""
    batch = BatchEnv(tables, "classic", opponents={1: "heuristic", 3: "heuristic"})
    views, masks = batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    weights = np.zeros(N_FEATURES)
    optimiser = Adam(N_FEATURES, learning_rate)
    episode_gradients = np.zeros((tables, N_FEATURES))  # sum of grad log pi, per table
    gradient = np.zeros(N_FEATURES)
    returns = []
    baseline = 0.0
    finished = 0
    history = []
    started = time.perf_counter()
    while finished < hands:
        actions = np.empty(tables, dtype=np.int64)
        playing = views[:, V_PHASE] == 1
        bidding = ~playing
        if bidding.any():
            actions[bidding] = BID_OFFSET + counting_bids(
                views[bidding], masks[bidding, BID_OFFSET:BID_OFFSET + 18])
        if playing.any():
            rows = np.flatnonzero(playing)
            features = card_features(views[rows])
            chance = probabilities(features, masks[rows, :54], weights)
            draws = rng.random(len(rows))[:, None]
            cards = np.minimum((np.cumsum(chance, axis=1) < draws).sum(axis=1), 53)
            cards = np.where(masks[rows, cards], cards, np.argmax(chance, axis=1))  # rounding
            actions[rows] = cards
            expected = np.einsum("mc,mcf->mf", chance, features)
            episode_gradients[rows] += features[np.arange(len(rows)), cards] - expected
        views, masks, rewards, dones = batch.step(actions)
        if dones.any():
            done = np.flatnonzero(dones)
            hand_returns = (shaped(rewards[done, 0]) - shaped(rewards[done, 1])) / 100.0
            gradient += ((hand_returns - baseline)[:, None] * episode_gradients[done]).sum(0)
            episode_gradients[done] = 0.0
            returns.extend(hand_returns)
            if len(returns) >= batch_hands:
                mean_return = float(np.mean(returns))
                weights = optimiser.ascend(weights, gradient / len(returns))
                baseline = mean_return if not history else 0.9 * baseline + 0.1 * mean_return
                finished += len(returns)
                history.append((finished, 100.0 * mean_return))
                if len(history) % 10 == 1 or finished >= hands:
                    report(f"hands {finished:>9,}  mean score difference {100 * mean_return:+7.1f}"
                           f"  ({time.perf_counter() - started:.0f} s)")
                gradient[:] = 0.0
                returns = []
    return weights, history


def main(argv=None):
    arguments = parse(argv)
    started = time.perf_counter()
    weights, history = train(arguments.hands, arguments.tables, arguments.batch_hands,
                             arguments.learning_rate, arguments.seed)
    out = Path(arguments.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez(out, weights=weights, features=np.array(FEATURES), seed=arguments.seed,
             hands=history[-1][0], history=np.array(history))
    print(f"trained on {history[-1][0]:,} hands in {time.perf_counter() - started:.0f} s; "
          f"weights saved to {out}")
    for name, weight in zip(FEATURES, weights):
        print(f"  {name:<22} {weight:+.3f}")


if __name__ == "__main__":
    main()
