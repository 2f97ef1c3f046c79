"""PaddlePaddle: a hand-written SGD step that silently does nothing, and a leaf write that raises."""

import paddle


def main() -> None:
    paddle.seed(0)
    w = paddle.randn([4, 3])
    w.stop_gradient = False
    x = paddle.randn([8, 4])

    loss = paddle.matmul(x, w).pow(2).mean()
    loss.backward()
    w -= 0.1 * w.grad  # rebinds the name `w`: the trainable tensor never changes

    bias = paddle.zeros([3])
    bias.stop_gradient = False
    bias.scale_(2.0)  # in-place on a leaf that requires grad, outside paddle.no_grad()
    (paddle.matmul(x, w) + bias).sum().backward()


if __name__ == "__main__":
    main()
