"""metrics.py — corpus BLEU and chrF written from sacreBLEU's standard definitions (sacreBLEU 2.x
defaults: `BLEU` with tokenize="13a", smooth_method="exp", max_ngram_order=4; `CHRF` with
char_order=6, word_order=0, beta=2, whitespace removed, eps_smoothing=False), and a word-for-word
dictionary (Dice coefficient over the training pairs) used as the baseline translator and as
the word aligner of the cross-attention check.

BLEU (Papineni et al. 2002 as sacreBLEU computes it): both sides tokenised with the 13a rules
(mteval-v13a: entities unescaped; punctuation and symbols split off; "." and "," split unless
next to a digit; "-" split after a digit); per n = 1..4 the clipped n-gram matches and the
hypothesis n-gram totals are summed over the corpus; p_n = matches/totals, where a zero match
count is replaced by 1/(2^k * total) for the k-th such order ("exp" smoothing);
BP = exp(1 - r/c) when the hypothesis length c < reference length r, else 1;
BLEU = 100 * BP * exp(mean(log p_n)).

chrF (Popović 2015): whitespace removed, character n-grams n = 1..6; per n the hypothesis and
reference n-gram counts and the clipped matches are summed over the corpus; precision and
recall per order, averaged over the orders where both counts are non-zero; F_beta with beta=2:
chrF = 100 * (1+b^2) P R / (b^2 P + R).
"""

import collections
import math
import re

_13A = [(re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])"), r" \1 "),
        (re.compile(r"([^0-9])([\.,])"), r"\1 \2 "),
        (re.compile(r"([\.,])([^0-9])"), r" \1 \2"),
        (re.compile(r"([0-9])(-)"), r"\1 \2 ")]


def tokenize_13a(line):
    if not line:
        return ""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<") \
            .replace("&gt;", ">")
    line = " %s " % line
    for rx, sub in _13A:
        line = rx.sub(sub, line)
    return " ".join(line.split())


def _ngrams(words, n):
    return collections.Counter(tuple(words[i:i + n]) for i in range(len(words) - n + 1))


def corpus_bleu(hyps, refs):
    matches, totals = [0] * 4, [0] * 4
    c = r = 0
    for h, ref in zip(hyps, refs):
        hw, rw = tokenize_13a(h).split(), tokenize_13a(ref).split()
        c, r = c + len(hw), r + len(rw)
        for n in range(1, 5):
            hn, rn = _ngrams(hw, n), _ngrams(rw, n)
            matches[n - 1] += sum(min(k, rn[g]) for g, k in hn.items())
            totals[n - 1] += max(0, len(hw) - n + 1)
    if c == 0:
        return 0.0
    logs, k = [], 1.0
    for m, t in zip(matches, totals):
        if t == 0:
            return 0.0
        if m == 0:
            k *= 2
            logs.append(math.log(1.0 / (k * t)))
        else:
            logs.append(math.log(m / t))
    bp = 1.0 if c >= r else math.exp(1 - r / c)
    return 100.0 * bp * math.exp(sum(logs) / 4)


def corpus_chrf(hyps, refs, order=6, beta=2.0):
    stats = [[0, 0, 0] for _ in range(order)]
    for h, ref in zip(hyps, refs):
        hs, rs = "".join(h.split()), "".join(ref.split())
        for n in range(1, order + 1):
            hn = collections.Counter(hs[i:i + n] for i in range(len(hs) - n + 1))
            rn = collections.Counter(rs[i:i + n] for i in range(len(rs) - n + 1))
            st = stats[n - 1]
            st[0] += sum(hn.values())
            st[1] += sum(rn.values())
            st[2] += sum(min(k, rn[g]) for g, k in hn.items())
    prec = rec = 0.0
    eff = 0
    for n_hyp, n_ref, n_match in stats:
        if n_hyp > 0 and n_ref > 0:
            prec += n_match / n_hyp
            rec += n_match / n_ref
            eff += 1
    if eff == 0:
        return 0.0
    prec, rec = prec / eff, rec / eff
    f = beta * beta
    return 100.0 * (1 + f) * prec * rec / (f * prec + rec) if prec + rec else 0.0


_WORD = re.compile(r"\w+(?:[-']\w+)*|[^\w\s]")


def words(text):
    return _WORD.findall(text)


class Dictionary:
    """Word-for-word translation table from sentence pairs: for each lower-cased English word the
    German word (its most frequent surface form) with the highest Dice coefficient
    2 c(e,d) / (c(e) + c(d)) over the pairs they co-occur in (counted once per pair)."""

    def __init__(self, pairs, min_count=2):
        ce, cd, ced = collections.Counter(), collections.Counter(), collections.Counter()
        forms = collections.defaultdict(collections.Counter)
        for en, de in pairs:
            es = {w.lower() for w in words(en)}
            ds = set()
            for w in words(de):
                forms[w.lower()][w] += 1
                ds.add(w.lower())
            ce.update(es)
            cd.update(ds)
            ced.update((e, d) for e in es for d in ds)
        best = {}
        for (e, d), n in ced.items():
            if n < min_count:
                continue
            dice = 2.0 * n / (ce[e] + cd[d])
            if dice > best.get(e, (0.0, ""))[0] or (dice == best.get(e, (0.0, ""))[0]
                                                   and d < best[e][1]):
                best[e] = (dice, d)
        self.table = {e: (dice, forms[d].most_common(1)[0][0]) for e, (dice, d) in best.items()}
        self.dice = {k: 2.0 * n / (ce[k[0]] + cd[k[1]]) for k, n in ced.items() if n >= min_count}

    def translate(self, en):
        out = []
        for w in words(en):
            hit = self.table.get(w.lower())
            out.append(hit[1] if hit else w)
        text = " ".join(out)
        return re.sub(r" ([.,;:!?)])", r"\1", text).replace("( ", "(")

    def partner(self, de_word, en_words):
        """(index of the English word with the highest Dice coefficient with DE_WORD, that
        coefficient), or (None, 0.0) when no pair was seen often enough."""
        best, where = 0.0, None
        for j, e in enumerate(en_words):
            s = self.dice.get((e.lower(), de_word.lower()), 0.0)
            if s > best:
                best, where = s, j
        return where, best
