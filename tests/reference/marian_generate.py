"""marian_generate.py — greedy and beam search exactly as transformers' generate() runs them for a
Marian model (generation/utils.py _greedy_search/_beam_search, generation/beam_search.py
BeamSearchScorer + BeamHypotheses, generation/logits_process.py; transformers v4.40).

Decoder input starts as [decoder_start_token_id] (= pad, V-1). At every step, with cur_len = the
length of the decoder sequence so far (start token included):
  processors, in HF's order: NoRepeatNGram (no_repeat_ngram_size n: the n-grams of each row's
  sequence keyed by their first n-1 tokens; the row's last n-1 tokens' entry lists the banned
  tokens, -inf; nothing while cur_len + 1 < n), NoBadWords (each single-id bad word, here
  [[pad]], gets -inf; longer bad words only when the sequence ends with their prefix),
  MinLength (eos -inf while cur_len < min_length), ForcedBOS (when cur_len == 1 every score
  but forced_bos_token_id's is -inf and that one 0), ForcedEOS (the same when cur_len ==
  max_length - 1 for forced_eos_token_id), then LogitNormalization (log_softmax again) when
  renormalize_logits.
Greedy (num_beams 1): processors on the raw last-position logits, argmax (first index on ties),
  append, stop after eos or when the sequence has max_length tokens.
Beam search (num_beams K): scores = processors(log_softmax(logits)) + running beam score (first
  step: only beam 0 live, the others start at -1e9); the top 2K of the K*V flattened scores,
  in descending order; walking them: an eos candidate ranked < K closes a hypothesis (the beam's
  tokens WITHOUT the eos, score / generated_len**length_penalty with generated_len = its length
  counting the start token, i.e. generated tokens incl. the eos), an eos ranked >= K is skipped,
  anything else becomes one of the next K beams. BeamHypotheses keeps the K best (a new one
  enters while fewer than K or when better than the worst). The search is done when K
  hypotheses exist and (early_stopping) or worst >= best_candidate / cur_len_generated**lp
  (early_stopping False, HF's heuristic), or at max_length. finalize() then offers every live
  beam (length minus the start token as generated_len) and returns the best hypothesis with eos
  appended when it is shorter than max_length.
The decoder is re-run on the whole prefix at every step (no KV cache): same maths, the cache only
saves time.
"""

import torch

NEG_INF = float("-inf")


class Processors:
    def __init__(self, gen, vocab_size, max_length):
        self.bad = gen.get("bad_words_ids") or []
        self.eos = gen.get("eos_token_id")
        self.forced_eos = gen.get("forced_eos_token_id")
        self.forced_bos = gen.get("forced_bos_token_id")
        self.ngram = gen.get("no_repeat_ngram_size") or 0
        self.min_length = gen.get("min_length") or 0
        self.renorm = bool(gen.get("renormalize_logits"))
        self.max_length = max_length
        self.v = vocab_size

    def __call__(self, seqs, scores):
        """seqs: list of id lists (one per row), scores [N,V] float32 -> new scores."""
        scores = scores.clone()
        cur_len = len(seqs[0])
        if self.ngram > 0 and cur_len + 1 >= self.ngram:
            n = self.ngram
            for r, s in enumerate(seqs):
                # transformers' _get_ngrams / _get_generated_ngrams
                table = {}
                for gram in zip(*[s[i:] for i in range(n)]):
                    table.setdefault(tuple(gram[:-1]), []).append(gram[-1])
                for tok in table.get(tuple(s[cur_len + 1 - n:cur_len]), []):
                    scores[r, tok] = NEG_INF
        for word in self.bad:
            if len(word) == 1:
                scores[:, word[0]] = NEG_INF
                continue
            for r, s in enumerate(seqs):
                if len(s) >= len(word) - 1 and s[len(s) - len(word) + 1:] == word[:-1]:
                    scores[r, word[-1]] = NEG_INF
        if self.eos is not None and cur_len < self.min_length:
            scores[:, self.eos] = NEG_INF
        if self.forced_bos is not None and cur_len == 1:
            scores[:] = NEG_INF
            scores[:, self.forced_bos] = 0.0
        if self.forced_eos is not None and cur_len == self.max_length - 1:
            scores[:] = NEG_INF
            scores[:, self.forced_eos] = 0.0
        if self.renorm:
            scores = torch.log_softmax(scores, dim=-1)
        return scores


class Hypotheses:
    """BeamHypotheses: the K best finished sequences by score / generated_len**length_penalty."""

    def __init__(self, k, length_penalty, early_stopping):
        self.k, self.lp, self.early = k, length_penalty, early_stopping
        self.beams, self.worst = [], 1e9

    def add(self, seq, sum_logprobs, generated_len):
        score = sum_logprobs / (generated_len ** self.lp)
        if len(self.beams) < self.k or score > self.worst:
            self.beams.append((score, seq))
            if len(self.beams) > self.k:
                ranked = sorted((s, i) for i, (s, _) in enumerate(self.beams))
                del self.beams[ranked[0][1]]
                self.worst = ranked[1][0]
            else:
                self.worst = min(score, self.worst)

    def is_done(self, best_sum_logprobs, generated_len):
        if len(self.beams) < self.k:
            return False
        if self.early is True:
            return True
        return self.worst >= best_sum_logprobs / generated_len ** self.lp


def _settings(model, gen, num_beams, max_length):
    cfg = model.cfg
    k = num_beams if num_beams is not None else (gen.get("num_beams") or 1)
    n = max_length if max_length is not None else gen.get("max_length") or 20
    if n - 1 > cfg["max_position_embeddings"]:
        raise ValueError("max_length %d needs %d decoder positions, the model has %d"
                         % (n, n - 1, cfg["max_position_embeddings"]))
    start = gen.get("decoder_start_token_id")
    if start is None:
        start = cfg["decoder_start_token_id"]
    return k, n, start


@torch.no_grad()
def generate(model, src_ids, gen, num_beams=None, max_length=None):
    """Returns (ids incl. the start token and the final eos, score); score is the beam score
    (length-normalised) for beam search, None for greedy."""
    k, n, start = _settings(model, gen, num_beams, max_length)
    src = torch.tensor([src_ids], dtype=torch.long)
    enc, _, _ = model.encode(src)
    proc = Processors(gen, model.cfg["vocab_size"], n)
    eos = gen.get("eos_token_id")
    if k == 1:
        seq = [start]
        while len(seq) < n:
            logits = model.decode(torch.tensor([seq]), enc, last_only=True)["logits"][:, -1]
            tok = int(torch.argmax(proc([seq], logits), dim=-1)[0])
            seq.append(tok)
            if tok == eos:
                break
        return seq, None
    return _beam(model, enc, proc, k, n, start, eos, gen)


def _beam(model, enc, proc, k, n, start, eos, gen):
    seqs = [[start] for _ in range(k)]
    beam_scores = torch.zeros(k, dtype=torch.float32)
    beam_scores[1:] = -1e9
    hyps = Hypotheses(k, float(gen.get("length_penalty", 1.0)), gen.get("early_stopping", False))
    enc_k = enc.expand(k, -1, -1)
    prompt_len = 1
    done = False
    while True:
        logits = model.decode(torch.tensor(seqs), enc_k, last_only=True)["logits"][:, -1]
        scores = proc(seqs, torch.log_softmax(logits, dim=-1))
        scores = scores + beam_scores[:, None]
        v = scores.shape[-1]
        top_scores, top_ids = torch.topk(scores.view(-1), 2 * k, largest=True, sorted=True)
        cur_len = len(seqs[0]) + 1
        next_seqs, next_scores = [], []
        for rank in range(2 * k):
            src_beam, tok = int(top_ids[rank]) // v, int(top_ids[rank]) % v
            score = top_scores[rank]
            if eos is not None and tok == eos:
                if rank >= k:
                    continue
                hyps.add(list(seqs[src_beam]), float(score), cur_len - prompt_len)
            else:
                next_seqs.append(seqs[src_beam] + [tok])
                next_scores.append(score)
            if len(next_seqs) == k:
                break
        done = done or hyps.is_done(float(top_scores.max()), cur_len - prompt_len)
        seqs = next_seqs
        beam_scores = torch.stack(next_scores).to(torch.float32)
        if done or len(seqs[0]) >= n:
            break
    if not done:
        for b in range(k):
            hyps.add(list(seqs[b]), float(beam_scores[b]), len(seqs[b]) - prompt_len)
    # HF: sorted(beams, key=score).pop(): the best score, the last added among equal ones.
    score, best = sorted(hyps.beams, key=lambda sb: sb[0])[-1]
    if len(best) < n:
        best = best + [eos]
    return best, score
