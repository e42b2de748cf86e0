import torch


class Decoder(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.proj = torch.nn.Linear(hidden, hidden)

    def forward(self, h):
        logits = self.proj(h)
        keep = logits.nonzero()  # output size depends on the data
        torch.cuda.synchronize()
        return logits, keep


decoder = Decoder(64).cuda()
sample = torch.randn(8, 64, device="cuda")
graphed = torch.cuda.make_graphed_callables(decoder, (sample,))
