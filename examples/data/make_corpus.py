"""Generates examples/data/tiny_stories.txt: English-like text from a small grammar (no downloads).

python examples/data/make_corpus.py [--kb 300] [--seed 1]
"""

import argparse
import os
import random

NAMES = ["Mia", "Tom", "Lily", "Ben", "Anna", "Sam", "Lucy", "Max", "Ella", "Jack", "Rosa", "Leo"]
ANIMALS = ["cat", "dog", "bird", "fox", "rabbit", "frog", "bear", "duck", "mouse", "horse"]
THINGS = ["ball", "kite", "boat", "book", "cake", "hat", "box", "drum", "apple", "lamp", "map", "key"]
PLACES = [
    "the park",
    "the garden",
    "the forest",
    "the river",
    "the beach",
    "the town",
    "the farm",
    "the hill",
    "the market",
    "the school",
]
ADJ = ["big", "small", "red", "blue", "happy", "sad", "old", "new", "shiny", "funny", "quiet", "brave", "green"]
FEEL = ["happy", "sad", "tired", "excited", "scared", "proud", "hungry", "sleepy", "curious"]
VERB_T = ["found", "saw", "liked", "wanted", "lost", "made", "painted", "carried", "shared", "opened"]
VERB_I = ["ran", "jumped", "laughed", "played", "sang", "danced", "slept", "walked", "cried", "smiled"]
TIME = ["One day", "In the morning", "After lunch", "At night", "Once upon a time", "Later", "The next day"]
ADV = ["slowly", "quickly", "happily", "quietly", "loudly", "carefully"]


def np_(r):
    kind = r.random()
    if kind < 0.4:
        return f"the {r.choice(ADJ)} {r.choice(THINGS)}"
    if kind < 0.7:
        return f"a {r.choice(THINGS)}"
    return f"the {r.choice(ANIMALS)}"


def sentence(r, hero, friend):
    k = r.randrange(9)
    if k == 0:
        return f"{r.choice(TIME)}, {hero} went to {r.choice(PLACES)}."
    if k == 1:
        return f"{hero} {r.choice(VERB_T)} {np_(r)} near {r.choice(PLACES)}."
    if k == 2:
        return f"{hero} and {friend} {r.choice(VERB_I)} {r.choice(ADV)}."
    if k == 3:
        return f"{hero} felt {r.choice(FEEL)} because {friend} {r.choice(VERB_T)} {np_(r)}."
    if k == 4:
        return f'"Can I have {np_(r)}?" asked {hero}.'
    if k == 5:
        return f'"Yes, you can," said {friend}, and {hero} {r.choice(VERB_I)}.'
    if k == 6:
        return f"The {r.choice(ADJ)} {r.choice(ANIMALS)} {r.choice(VERB_I)} in {r.choice(PLACES)}."
    if k == 7:
        return f"{friend} gave {hero} {np_(r)}, and they were {r.choice(FEEL)}."
    return f"{hero} {r.choice(VERB_I)} to {r.choice(PLACES)} with the {r.choice(ANIMALS)}."


def story(r):
    hero, friend = r.sample(NAMES, 2)
    lines = [f"{r.choice(TIME)}, there was a {r.choice(ADJ)} {r.choice(ANIMALS)} named {hero}."]
    lines += [sentence(r, hero, friend) for _ in range(r.randrange(4, 9))]
    lines.append(f"In the end, {hero} and {friend} were {r.choice(FEEL)}. The end.")
    return " ".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kb", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny_stories.txt"))
    args = ap.parse_args()
    r = random.Random(args.seed)
    parts, size = [], 0
    while size < args.kb * 1024:
        s = story(r)
        parts.append(s)
        size += len(s) + 2
    with open(args.out, "w") as f:
        f.write("\n\n".join(parts) + "\n")
    print(f"wrote {size} bytes to {args.out}")


if __name__ == "__main__":
    main()
