"""The word-level LSTM language model of PyTorch's examples/word_language_model, as a training step: embedding,
2-layer LSTM with dropout, linear decoder, cross-entropy, gradient clipping and a plain SGD update. Shared by
benchmarks/run.py (mindtorch against PyTorch) and benchmarks/npu.py (the npu's host time against the cpu)."""


def lstm_lm_step(m, device="cpu", vocab=10000, width=200, bptt=35, batch=20):
    """One SGD step of the model in library `m` (mindtorch or torch) on `device`, as a callable."""
    nn, F = m.nn, m.nn.functional

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Embedding(vocab, width)
            self.rnn = nn.LSTM(width, width, 2, dropout=0.2)
            self.decoder = nn.Linear(width, vocab)
            self.drop = nn.Dropout(0.2)

        def forward(self, x, hidden):
            out, hidden = self.rnn(self.drop(self.encoder(x)), hidden)
            return self.decoder(self.drop(out)).view(-1, vocab), hidden

    m.manual_seed(0)
    model = Model().to(device)
    data = m.randint(0, vocab, (bptt, batch)).to(device)
    tgt = m.randint(0, vocab, (bptt * batch,)).to(device)
    hidden = [tuple(m.zeros(2, batch, width, device=device) for _ in range(2))]

    def step():
        h = tuple(t.detach() for t in hidden[0])  # truncated backpropagation through time
        model.zero_grad()
        out, hidden[0] = model(data, h)
        F.cross_entropy(out, tgt).backward()
        nn.utils.clip_grad_norm_(model.parameters(), 0.25)
        with m.no_grad():
            for p in model.parameters():
                p.add_(p.grad, alpha=-20.0)

    return step
