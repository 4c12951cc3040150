"""Tiny Hugging Face models built from configs, written for torch; run as-is with real torch or under
`python -m mindtorch.run`. Saves logits, loss, gradients, the parameters after one AdamW step and a
greedy generation to an .npz file, for the test to compare. The weights and inputs are made on the cpu and
moved to DEVICE (default cpu); what is saved comes back to the cpu.

    python hf_tiny_models.py {gpt2|bert|llama} OUT.npz [DEVICE]
"""

import sys

import numpy as np
import torch
import transformers


def build(kind):
    common = dict(vocab_size=61, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    if kind == "gpt2":
        cfg = transformers.GPT2Config(
            vocab_size=61,
            n_positions=32,
            n_embd=32,
            n_layer=2,
            n_head=4,
            resid_pdrop=0.0,
            embd_pdrop=0.0,
            attn_pdrop=0.0,
            bos_token_id=0,
            eos_token_id=1,
        )
        return transformers.GPT2LMHeadModel(cfg)
    if kind == "bert":
        cfg = transformers.BertConfig(
            hidden_size=32,
            num_hidden_layers=2,
            num_attention_heads=4,
            intermediate_size=64,
            max_position_embeddings=32,
            pad_token_id=0,
            **common,
        )
        return transformers.BertForMaskedLM(cfg)
    cfg = transformers.LlamaConfig(
        vocab_size=61,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        max_position_embeddings=32,
        bos_token_id=0,
        eos_token_id=1,
        pad_token_id=2,
    )
    return transformers.LlamaForCausalLM(cfg)


def main():
    kind, out = sys.argv[1], sys.argv[2]
    device = sys.argv[3] if len(sys.argv) > 3 else "cpu"
    model = build(kind)
    rng = np.random.default_rng(0)
    with torch.no_grad():  # the same starting point in both libraries
        for name, p in model.named_parameters():
            if "norm" in name.lower() and name.endswith("weight"):
                p.fill_(1.0)
            else:
                p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.05))
    ids = torch.tensor(rng.integers(3, 61, (2, 10)))
    mask = torch.ones_like(ids)
    mask[1, :2] = 0 if kind == "bert" else 1
    model.to(device)
    ids, mask = ids.to(device), mask.to(device)
    model.train()
    res = model(input_ids=ids, attention_mask=mask, labels=ids)
    assert res.logits.device.type == torch.device(device).type, res.logits.device
    res.loss.backward()
    saved = {"logits": res.logits.detach().cpu().numpy(), "loss": np.array(res.loss.item())}
    for name, p in model.named_parameters():
        if p.grad is not None:
            saved["grad." + name] = p.grad.cpu().numpy()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.01)
    opt.step()
    for name, p in model.named_parameters():
        saved["param." + name] = p.detach().cpu().numpy()
    model.eval()
    if kind != "bert":
        with torch.no_grad():
            gen = model.generate(ids[:1, :4], max_new_tokens=6, do_sample=False, pad_token_id=2)
        saved["generated"] = gen.cpu().numpy()
    else:
        with torch.no_grad():
            saved["eval_logits"] = model(input_ids=ids, attention_mask=mask).logits.cpu().numpy()
    np.savez(out, **saved)
    print(f"{kind} done: loss {res.loss.item():.6f}")


if __name__ == "__main__":
    main()
