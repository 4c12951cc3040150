"""A word-level language model written for torch in the shape of pytorch/examples'
word_language_model: an LSTM (or a TransformerEncoder with positional encoding and a causal mask)
between an embedding and a tied decoder, batchify / get_batch with bptt, hidden states detached
between batches, gradient clipping and the example's hand-written SGD update. Prints one loss per
step; weights start from a NumPy seed so both libraries start from the same point. It ends as the
example does: the whole model saved with torch.save, loaded back, and evaluated."""

import argparse
import math
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

CORPUS = (
    "the cat sat on the mat . the dog sat on the log . a bird flew over the house and the cat watched "
    "the bird . the dog slept by the door while the rain fell on the roof . "
) * 6


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers, tie_weights=True):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=0.0)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            self.decoder.weight = self.encoder.weight
        self.nhid, self.nlayers = nhid, nlayers

    def forward(self, input, hidden):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        decoded = self.decoder(output).view(-1, self.decoder.out_features)
        return F.log_softmax(decoded, dim=1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0).transpose(0, 1))

    def forward(self, x):
        return x + self.pe[: x.size(0), :]


class TransformerModel(nn.Module):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers):
        super().__init__()
        self.pos_encoder = PositionalEncoding(ninp)
        layer = nn.TransformerEncoderLayer(ninp, nhead, nhid, dropout=0.0)
        self.transformer_encoder = nn.TransformerEncoder(layer, nlayers, enable_nested_tensor=False)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

    def forward(self, src):
        mask = nn.Transformer.generate_square_subsequent_mask(len(src))
        src = self.pos_encoder(self.input_emb(src) * math.sqrt(self.ninp))
        output = self.decoder(self.transformer_encoder(src, mask))
        return F.log_softmax(output, dim=-1)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    return data.narrow(0, 0, nbatch * bsz).view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i : i + seq_len], source[i + 1 : i + 1 + seq_len].reshape(-1)


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="LSTM")
    parser.add_argument("--lr", type=float, default=5.0)
    parser.add_argument("--bptt", type=int, default=7)
    args = parser.parse_args()
    words = CORPUS.split()
    vocab = {w: i for i, w in enumerate(sorted(set(words)))}
    ids = torch.tensor([vocab[w] for w in words], dtype=torch.long)
    train_data = batchify(ids, 4)
    ntokens = len(vocab)
    if args.model == "Transformer":
        model = TransformerModel(ntokens, 16, 2, 32, 2)
    else:
        model = RNNModel(ntokens, 16, 16, 2)
    rng = np.random.default_rng(3)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))
    criterion = nn.NLLLoss()
    model.train()
    hidden = model.init_hidden(4) if args.model != "Transformer" else None
    for _batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt)
        model.zero_grad()
        if args.model == "Transformer":
            output = model(data).view(-1, ntokens)
        else:
            hidden = repackage_hidden(hidden)
            output, hidden = model(data, hidden)
        loss = criterion(output, targets)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-args.lr)
        print(f"loss {loss.item():.8f}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.pt")
        with open(path, "wb") as f:
            torch.save(model, f)
        with open(path, "rb") as f:
            model = torch.load(f, weights_only=False)
    print(f"reloaded {evaluate(model, train_data, ntokens, args):.8f}")


def evaluate(model, data_source, ntokens, args):
    model.eval()
    total, steps = 0.0, 0
    hidden = model.init_hidden(data_source.size(1)) if args.model != "Transformer" else None
    with torch.no_grad():
        for i in range(0, data_source.size(0) - 1, args.bptt):
            data, targets = get_batch(data_source, i, args.bptt)
            if args.model == "Transformer":
                output = model(data).view(-1, ntokens)
            else:
                output, hidden = model(data, hidden)
                hidden = repackage_hidden(hidden)
            total += len(data) * F.nll_loss(output, targets).item()
            steps += len(data)
    return total / steps


if __name__ == "__main__":
    main()
