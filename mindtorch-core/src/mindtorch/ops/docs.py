"""Docstrings of the generated API: a one-line summary per op name and its signatures in PyTorch's
documented form (`add(input, other, *, alpha=1, out=None) -> Tensor`). In-place forms (`add_`) reuse
their op's summary. A test checks that every op of the table has a summary here."""

SUMMARIES = {
    # -- internal primitives (what the public functions and the autograd formulas call) --
    "_adaptive_avg_pool2d": "Adaptive 2-D average pooling primitive (output size given, windows derived).",
    "_adaptive_avg_pool2d_backward": "Gradient of _adaptive_avg_pool2d with respect to its input.",
    "_avg_pool2d": "2-D average pooling primitive behind avg_pool2d.",
    "_avg_pool2d_backward": "Gradient of _avg_pool2d with respect to its input.",
    "_batch_norm": "Batch normalization primitive: output, batch mean and 1/std; in training it updates "
    "running_mean and running_var in place (momentum; the unbiased variance), leaving their versions alone.",
    "_batch_norm_backward": "Gradients of _batch_norm with respect to input, weight and bias.",
    "_bincount": "Counting primitive behind bincount (the output length depends on the values).",
    "_conv2d": "2-D convolution primitive behind conv2d; padding is (top, bottom, left, right).",
    "_conv2d_backward_input": "Gradient of _conv2d with respect to its input.",
    "_conv2d_backward_weight": "Gradient of _conv2d with respect to its weight.",
    "_cross_entropy": "Fused log-softmax and negative log-likelihood primitive behind cross_entropy: the loss, "
    "the total weight of the counted targets and the log-probabilities (kept for the backward).",
    "_amp_foreach_non_finite_check_and_unscale_": "Multiply gradients by inv_scale in place; found_inf becomes 1 "
    "when any of them holds an inf or a NaN (GradScaler's unscale, no host read).",
    "_amp_update_scale_": "GradScaler's scale update on the device: back off on an overflow, grow after "
    "growth_interval clean steps; growth_tracker counts them.",
    "_cross_entropy_backward": "Gradient of _cross_entropy with respect to the logits.",
    "_embedding_backward": "Gradient of embedding with respect to the weight table.",
    "_embedding_renorm_": "Rescale, in place, the embedding rows used by indices to a maximum norm.",
    "_fft_c2c": "Complex-to-complex discrete Fourier transform over the given dims.",
    "_fft_c2r": "One-sided complex-to-real inverse discrete Fourier transform over the given dims.",
    "_fft_r2c": "Real-to-complex discrete Fourier transform over the given dims (optionally one-sided).",
    "_foreach_adam_": "Adam/AdamW update applied to a whole list of parameters at once; state_steps are the "
    "optimizer's 0-dim step counts, on the cpu whatever the parameters' device (incremented first).",
    "_foreach_mul": "Each tensor of a list times a number, a number per tensor, a 0-dim tensor, or the same-index tensor "
    "of a second list.",
    "_foreach_mul_": "Multiplies each tensor of a list in place by a number, a number per tensor, a 0-dim tensor, or the same-index "
    "tensor of a second list; returns the tensors.",
    "_foreach_abs": "abs of each tensor of a list.",
    "_foreach_acos": "acos of each tensor of a list.",
    "_foreach_add": "Each tensor of a list plus a number, a number per tensor, a 0-dim tensor, or the same-index tensor of a second list (times alpha).",
    "_foreach_addcdiv": "addcdiv per tensor of three lists, scaled by a number, a number per tensor, or a 1-D tensor of them.",
    "_foreach_addcmul": "addcmul per tensor of three lists, scaled by a number, a number per tensor, or a 1-D tensor of them.",
    "_foreach_asin": "asin of each tensor of a list.",
    "_foreach_atan": "atan of each tensor of a list.",
    "_foreach_ceil": "ceil of each tensor of a list.",
    "_foreach_clamp_max": "Each tensor of a list clamped from above by a number, a number per tensor, or the same-index tensor of a second list.",
    "_foreach_clamp_min": "Each tensor of a list clamped from below by a number, a number per tensor, or the same-index tensor of a second list.",
    "_foreach_copy_": "Copies each tensor of a second list into the same-index tensor of a list, in place.",
    "_foreach_cos": "cos of each tensor of a list.",
    "_foreach_cosh": "cosh of each tensor of a list.",
    "_foreach_div": "Each tensor of a list divided by a number, a number per tensor, a 0-dim tensor, or the same-index tensor of a second list.",
    "_foreach_erf": "erf of each tensor of a list.",
    "_foreach_erfc": "erfc of each tensor of a list.",
    "_foreach_exp": "exp of each tensor of a list.",
    "_foreach_expm1": "expm1 of each tensor of a list.",
    "_foreach_floor": "floor of each tensor of a list.",
    "_foreach_frac": "frac of each tensor of a list.",
    "_foreach_lerp": "lerp per tensor of two lists, with a number, a number per tensor, or a third list as the weight.",
    "_foreach_lgamma": "lgamma of each tensor of a list.",
    "_foreach_log": "log of each tensor of a list.",
    "_foreach_log10": "log10 of each tensor of a list.",
    "_foreach_log1p": "log1p of each tensor of a list.",
    "_foreach_log2": "log2 of each tensor of a list.",
    "_foreach_maximum": "The elementwise maximum of each tensor of a list and a number, a number per tensor, or the same-index tensor of a second list.",
    "_foreach_minimum": "The elementwise minimum of each tensor of a list and a number, a number per tensor, or the same-index tensor of a second list.",
    "_foreach_neg": "neg of each tensor of a list.",
    "_foreach_pow": "Each tensor of a list raised to a number, a number per tensor, or the same-index tensor of a second list; or a number raised to each tensor.",
    "_foreach_reciprocal": "reciprocal of each tensor of a list.",
    "_foreach_round": "round of each tensor of a list.",
    "_foreach_rsqrt": "rsqrt of each tensor of a list.",
    "_foreach_sigmoid": "sigmoid of each tensor of a list.",
    "_foreach_sign": "sign of each tensor of a list.",
    "_foreach_sin": "sin of each tensor of a list.",
    "_foreach_sinh": "sinh of each tensor of a list.",
    "_foreach_sqrt": "sqrt of each tensor of a list.",
    "_foreach_sub": "Each tensor of a list minus a number, a number per tensor, or the same-index tensor of a second list (times alpha).",
    "_foreach_tan": "tan of each tensor of a list.",
    "_foreach_tanh": "tanh of each tensor of a list.",
    "_foreach_trunc": "trunc of each tensor of a list.",
    "_foreach_zero_": "Fills each tensor of a list with zeros in place.",
    "_foreach_norm": "The vector norm of each tensor of a list (linalg.vector_norm per tensor, with ord and dtype).",
    "_foreach_sgd_": "SGD (momentum, Nesterov) update applied to a whole list of parameters at once.",
    "_frexp": "Kernel behind frexp: mantissas and base-2 exponents.",
    "_group_norm": "Group normalization primitive: output plus per-group mean and reciprocal std.",
    "_group_norm_backward": "Gradients of _group_norm with respect to input, weight and bias.",
    "_grouped_matmul": "Grouped (MoE expert) matmul: consecutive row groups of x, ending at the cumulative "
    "group_list, each times its weight[g]; rows past the last end are zero.",
    "_grouped_matmul_backward": "Gradients of _grouped_matmul with respect to x and weight.",
    "_log_softmax_backward_data": "Gradient of log_softmax with respect to its input.",
    "_max_dim": "Maximum along a dim with its indices (the primitive behind max(input, dim)).",
    "_max_pool2d_backward": "Gradient of 2-D max pooling, routed to the recorded argmax positions.",
    "_max_pool2d_with_indices": "2-D max pooling returning the values and the flat argmax indices.",
    "_min_dim": "Minimum along a dim with its indices (the primitive behind min(input, dim)).",
    "_nll_loss": "Negative log-likelihood primitive: the loss and the total weight.",
    "_nll_loss_backward": "Gradient of _nll_loss with respect to its log-probabilities.",
    "_rnn_layer": "One recurrent layer in one direction over a packed sequence (rows grouped by batch_sizes): "
    "output, final h, final c (empty unless LSTM) and a workspace the backward reads.",
    "_rnn_layer_backward": "Gradients of _rnn_layer with respect to input, hx, cx and the weights and biases "
    "(an absent argument gets an empty gradient).",
    "_rms_norm": "RMS normalization primitive: output plus the reciprocal root mean square.",
    "_rms_norm_backward": "Gradients of _rms_norm with respect to input and weight.",
    "_rotary_mul": "Rotary position embedding x * r1 + rotate(x) * r2; rotary_mode 'half' rotates the two "
    "halves of the last dim, 'interleave' each pair of neighbours (torch_npu's npu_rotary_mul).",
    "_rotary_mul_backward": "Gradients of _rotary_mul with respect to x, r1 and r2 (summed to their shapes).",
    "_scaled_dot_product_attention": "Attention primitive: softmax(q k^T * scale + mask) v and each row's logsumexp of the "
    "scaled, masked scores (float32 for half-precision inputs); "
    "is_causal masks above the diagonal and then attn_mask is ignored; a bool mask keeps where True; key and "
    "value may have a divisor of query's heads (grouped-query attention); dropout_mask (bool, True = kept) "
    "zeroes probabilities and scales the rest by 1 / (1 - dropout_p).",
    "_scaled_dot_product_attention_backward": "Gradients of scaled dot-product attention for q, k and v, "
    "the probabilities recomputed from the scores and the forward's logsumexp, the forward's dropout_mask "
    "applied again; key and value gradients summed over the query heads sharing them.",
    "_softmax_backward_data": "Gradient of softmax with respect to its input.",
    "_sort": "Sorting primitive behind sort: values and their original indices.",
    "_swiglu": "SwiGLU: silu(a) * b for the two halves a, b of x along dim (torch_npu's npu_swiglu).",
    "_swiglu_backward": "Gradient of _swiglu with respect to its input.",
    "_to_copy": "Copy primitive behind Tensor.to: a new tensor of another dtype and/or device.",
    "_topk": "Primitive behind topk: the k largest (or smallest) values and their indices.",
    "_unique": "Primitive behind unique: distinct values, inverse indices and counts, all three always "
    "(return_inverse and return_counts only say what the caller keeps).",
    "_upsample2d": "2-D upsampling primitive (nearest or bilinear) behind interpolate.",
    "_upsample2d_backward": "Gradient of _upsample2d with respect to its input.",
    # -- pointwise math --
    "abs": "Absolute value of each element.",
    "absolute": "Absolute value of each element (alias of abs).",
    "acos": "Arccosine of each element.",
    "acosh": "Inverse hyperbolic cosine of each element.",
    "add": "Adds other, scaled by alpha, to input.",
    "addcdiv": "input + value * tensor1 / tensor2, elementwise.",
    "addcmul": "input + value * tensor1 * tensor2, elementwise.",
    "angle": "Argument (phase angle) of each element; pi for negative reals, 0 otherwise.",
    "arccos": "Arccosine of each element (alias of acos).",
    "arccosh": "Inverse hyperbolic cosine of each element (alias of acosh).",
    "arcsin": "Arcsine of each element (alias of asin).",
    "arcsinh": "Inverse hyperbolic sine of each element (alias of asinh).",
    "arctan": "Arctangent of each element (alias of atan).",
    "arctan2": "Quadrant-aware arctangent of input / other (alias of atan2).",
    "arctanh": "Inverse hyperbolic tangent of each element (alias of atanh).",
    "asin": "Arcsine of each element.",
    "asinh": "Inverse hyperbolic sine of each element.",
    "atan": "Arctangent of each element.",
    "atan2": "Quadrant-aware arctangent of input / other, elementwise.",
    "atanh": "Inverse hyperbolic tangent of each element.",
    "bitwise_and": "Bitwise AND of integer or boolean tensors.",
    "bitwise_left_shift": "Shifts the bits of input left by other.",
    "bitwise_not": "Bitwise NOT of an integer or boolean tensor.",
    "bitwise_or": "Bitwise OR of integer or boolean tensors.",
    "bitwise_right_shift": "Shifts the bits of input right by other (arithmetic for signed types).",
    "bitwise_xor": "Bitwise XOR of integer or boolean tensors.",
    "ceil": "Smallest integer not less than each element.",
    "clamp": "Limits each element to the range [min, max].",
    "clamp_max": "Limits each element to at most max.",
    "clamp_min": "Limits each element to at least min.",
    "clip": "Limits each element to the range [min, max] (alias of clamp).",
    "complex": "A complex tensor from its real and imaginary parts.",
    "conj_physical": "Complex conjugate of each element, materialized.",
    "copysign": "Magnitude of input with the sign of other, elementwise.",
    "cos": "Cosine of each element.",
    "cosh": "Hyperbolic cosine of each element.",
    "deg2rad": "Converts angles from degrees to radians.",
    "digamma": "Logarithmic derivative of the gamma function, elementwise.",
    "div": "Divides input by other (true division, or rounded by rounding_mode).",
    "divide": "Divides input by other (alias of div).",
    "elu": "Exponential linear unit: x for x > 0, alpha * (exp(x) - 1) otherwise.",
    "eq": "Elementwise equality test.",
    "erf": "Error function of each element.",
    "erfc": "Complementary error function (1 - erf) of each element.",
    "erfinv": "Inverse error function of each element.",
    "exp": "Exponential of each element.",
    "exp2": "Two raised to each element.",
    "expm1": "exp(x) - 1 of each element, accurate near zero.",
    "fix": "Rounds each element toward zero (alias of trunc).",
    "float_power": "input raised to exponent, computed in double precision.",
    "floor": "Largest integer not greater than each element.",
    "floor_divide": "Divides and rounds the quotient down (floor division).",
    "fmax": "Elementwise maximum that ignores NaN when the other value is a number.",
    "fmin": "Elementwise minimum that ignores NaN when the other value is a number.",
    "fmod": "Remainder of division with the sign of the dividend (C fmod).",
    "frac": "Fractional part of each element.",
    "frexp": "Splits each element into a mantissa in [0.5, 1) and a power-of-two exponent.",
    "gcd": "Greatest common divisor of integer tensors, elementwise.",
    "ge": "Elementwise test input >= other.",
    "gelu": "Gaussian error linear unit (exact, or its tanh approximation).",
    "gelu_backward": "Gradient of gelu with respect to its input.",
    "greater": "Elementwise test input > other (alias of gt).",
    "greater_equal": "Elementwise test input >= other (alias of ge).",
    "gt": "Elementwise test input > other.",
    "hardshrink": "Zeroes elements whose magnitude is at most lambd.",
    "hardtanh": "Clamps each element to [min_val, max_val].",
    "heaviside": "Step function: 0 below zero, 1 above, `values` at zero.",
    "hypot": "Hypotenuse sqrt(input^2 + other^2), elementwise and overflow-safe.",
    "igamma": "Regularized lower incomplete gamma function P(input, other).",
    "igammac": "Regularized upper incomplete gamma function Q(input, other) = 1 - P(input, other).",
    "imag": "The imaginary part of a complex tensor, as a view.",
    "isclose": "Elementwise test that input and other are equal within tolerances.",
    "isfinite": "Elementwise test for finite values.",
    "isin": "Elementwise test for membership in test_elements.",
    "isinf": "Elementwise test for positive or negative infinity.",
    "isnan": "Elementwise test for NaN.",
    "isneginf": "Elementwise test for negative infinity.",
    "isposinf": "Elementwise test for positive infinity.",
    "isreal": "Elementwise test for a zero imaginary part.",
    "lcm": "Least common multiple of integer tensors, elementwise.",
    "ldexp": "input multiplied by two raised to other.",
    "le": "Elementwise test input <= other.",
    "leaky_relu": "x for x > 0, negative_slope * x otherwise.",
    "lerp": "Linear interpolation input + weight * (end - input).",
    "less": "Elementwise test input < other (alias of lt).",
    "less_equal": "Elementwise test input <= other (alias of le).",
    "lgamma": "Natural log of the absolute value of the gamma function, elementwise.",
    "log": "Natural logarithm of each element.",
    "log10": "Base-10 logarithm of each element.",
    "log1p": "log(1 + x) of each element, accurate near zero.",
    "log2": "Base-2 logarithm of each element.",
    "logaddexp": "log(exp(input) + exp(other)), computed without overflow.",
    "logaddexp2": "log2(2^input + 2^other), computed without overflow.",
    "logical_and": "Elementwise logical AND (nonzero is true).",
    "logical_not": "Elementwise logical NOT (nonzero is true).",
    "logical_or": "Elementwise logical OR (nonzero is true).",
    "logical_xor": "Elementwise logical XOR (nonzero is true).",
    "logit": "log(p / (1 - p)) of each element, optionally clamped by eps.",
    "lt": "Elementwise test input < other.",
    "maximum": "Elementwise maximum of two tensors (NaN propagates).",
    "minimum": "Elementwise minimum of two tensors (NaN propagates).",
    "mish": "Mish activation x * tanh(softplus(x)).",
    "mul": "Multiplies input by other, elementwise.",
    "multiply": "Multiplies input by other, elementwise (alias of mul).",
    "mvlgamma": "Multivariate log-gamma function of dimension p, elementwise.",
    "nan_to_num": "Replaces NaN and infinities with finite numbers.",
    "ne": "Elementwise test input != other.",
    "neg": "Negation of each element.",
    "negative": "Negation of each element (alias of neg).",
    "nextafter": "The next representable floating-point value after input toward other.",
    "not_equal": "Elementwise test input != other (alias of ne).",
    "polar": "A complex tensor from magnitudes and angles.",
    "i0": "Modified Bessel function of the first kind of order 0, elementwise.",
    "special_airy_ai": "Airy function Ai, elementwise.",
    "special_bessel_j0": "Bessel function of the first kind of order 0, elementwise.",
    "special_bessel_j1": "Bessel function of the first kind of order 1, elementwise.",
    "special_bessel_y0": "Bessel function of the second kind of order 0, elementwise.",
    "special_bessel_y1": "Bessel function of the second kind of order 1, elementwise.",
    "special_modified_bessel_i0": "Modified Bessel function of the first kind of order 0, elementwise.",
    "special_modified_bessel_i1": "Modified Bessel function of the first kind of order 1, elementwise.",
    "special_modified_bessel_k0": "Modified Bessel function of the second kind of order 0, elementwise.",
    "special_modified_bessel_k1": "Modified Bessel function of the second kind of order 1, elementwise.",
    "special_scaled_modified_bessel_k0": "exp(x) K0(x): the exponentially scaled modified Bessel function K0.",
    "special_scaled_modified_bessel_k1": "exp(x) K1(x): the exponentially scaled modified Bessel function K1.",
    "special_spherical_bessel_j0": "Spherical Bessel function of the first kind of order 0, sin(x) / x.",
    "special_erfcx": "Scaled complementary error function exp(x^2) erfc(x), elementwise.",
    "special_i0e": "exp(-|x|) I0(x): the exponentially scaled modified Bessel function I0.",
    "special_i1": "Modified Bessel function of the first kind of order 1, elementwise.",
    "special_i1e": "exp(-|x|) I1(x): the exponentially scaled modified Bessel function I1.",
    "special_zeta": "Hurwitz zeta function zeta(x, q), elementwise.",
    "special_chebyshev_polynomial_t": "Chebyshev polynomial of the first kind T_n(x) (n truncated to an integer).",
    "special_chebyshev_polynomial_u": "Chebyshev polynomial of the second kind U_n(x).",
    "special_chebyshev_polynomial_v": "Chebyshev polynomial of the third kind V_n(x).",
    "special_chebyshev_polynomial_w": "Chebyshev polynomial of the fourth kind W_n(x).",
    "special_shifted_chebyshev_polynomial_t": "Shifted Chebyshev polynomial of the first kind T_n(2x - 1).",
    "special_shifted_chebyshev_polynomial_u": "Shifted Chebyshev polynomial of the second kind U_n(2x - 1).",
    "special_shifted_chebyshev_polynomial_v": "Shifted Chebyshev polynomial of the third kind V_n(2x - 1).",
    "special_shifted_chebyshev_polynomial_w": "Shifted Chebyshev polynomial of the fourth kind W_n(2x - 1).",
    "special_hermite_polynomial_h": "Physicists' Hermite polynomial H_n(x).",
    "special_hermite_polynomial_he": "Probabilists' Hermite polynomial He_n(x).",
    "special_laguerre_polynomial_l": "Laguerre polynomial L_n(x).",
    "special_legendre_polynomial_p": "Legendre polynomial P_n(x).",
    "polygamma": "The n-th derivative of the digamma function, elementwise.",
    "positive": "Returns input unchanged (unary plus).",
    "pow": "input raised to the power exponent, elementwise.",
    "rad2deg": "Converts angles from radians to degrees.",
    "real": "The real part of a complex tensor, as a view (real tensors: input itself).",
    "reciprocal": "1 / x of each element.",
    "relu": "Rectified linear unit max(x, 0).",
    "threshold_backward": "Gradient of relu and threshold: 0 where self <= threshold, grad_output elsewhere.",
    "remainder": "Remainder of division with the sign of the divisor (Python %).",
    "round": "Rounds each element to the given number of decimals (halves to even).",
    "rsqrt": "Reciprocal square root of each element.",
    "rsub": "other - alpha * input (subtraction with the operands swapped).",
    "sgn": "Sign of each element; z / |z| for complex numbers.",
    "sigmoid": "Logistic sigmoid 1 / (1 + exp(-x)) of each element.",
    "sign": "Sign (-1, 0 or 1) of each element.",
    "signbit": "Elementwise test for a set sign bit (negative numbers and -0.0).",
    "silu": "Sigmoid linear unit x * sigmoid(x).",
    "silu_backward": "Gradient of silu with respect to its input.",
    "sin": "Sine of each element.",
    "sinc": "Normalized sinc sin(pi x) / (pi x) of each element.",
    "sinh": "Hyperbolic sine of each element.",
    "softplus": "Smooth ReLU log(1 + exp(beta x)) / beta, linear above threshold.",
    "sqrt": "Square root of each element.",
    "square": "Square of each element.",
    "sub": "Subtracts other, scaled by alpha, from input.",
    "subtract": "Subtracts other, scaled by alpha, from input (alias of sub).",
    "tan": "Tangent of each element.",
    "tanh": "Hyperbolic tangent of each element.",
    "true_divide": "Divides input by other with true division (alias of div).",
    "trunc": "Rounds each element toward zero.",
    "where": "Chooses elements from input where condition holds, else from other.",
    "xlogy": "input * log(other), zero where input is zero.",
    # -- reductions and order statistics --
    "all": "Whether all elements (along dims) are true.",
    "allclose": "Whether all elements of input and other are close within tolerances.",
    "amax": "Maximum over the given dims.",
    "amin": "Minimum over the given dims.",
    "aminmax": "Minimum and maximum in one pass.",
    "any": "Whether any element (along dims) is true.",
    "argmax": "Index of the maximum (over all elements or along a dim).",
    "argmin": "Index of the minimum (over all elements or along a dim).",
    "count_nonzero": "Number of nonzero elements (along dims).",
    "hash_tensor": "XOR of the elements' 64-bit patterns (along dims), as uint64.",
    "cummax": "Running maximum along a dim, with the index where it was reached.",
    "cummin": "Running minimum along a dim, with the index where it was reached.",
    "cumprod": "Cumulative product along a dim.",
    "cumsum": "Cumulative sum along a dim.",
    "equal": "Whether two tensors have the same size and elements.",
    "histc": "Histogram of the values with equal-width bins between min and max.",
    "kthvalue": "The k-th smallest element along a dim and its index.",
    "logcumsumexp": "Cumulative log-sum-exp along a dim, computed without overflow.",
    "logsumexp": "log(sum(exp(x))) over dims, computed without overflow.",
    "max": "Maximum of all elements, along a dim (with indices), or elementwise with other.",
    "mean": "Arithmetic mean (over all elements or along dims).",
    "median": "Lower median (over all elements, or along a dim with its index).",
    "min": "Minimum of all elements, along a dim (with indices), or elementwise with other.",
    "mode": "Most frequent value along a dim and the index of its last occurrence.",
    "msort": "Sorts along the first dim.",
    "nanmean": "Mean ignoring NaN.",
    "nanmedian": "Lower median ignoring NaN.",
    "nanquantile": "Quantiles ignoring NaN.",
    "nansum": "Sum treating NaN as zero.",
    "norm": "Vector or matrix norm (legacy interface of linalg.norm).",
    "prod": "Product of elements (over all or along a dim).",
    "quantile": "The q-th quantiles, interpolated as chosen.",
    "std": "Standard deviation with a degrees-of-freedom correction.",
    "std_mean": "Standard deviation and mean in one pass.",
    "sum": "Sum of elements (over all or along dims).",
    "var": "Variance with a degrees-of-freedom correction.",
    "var_mean": "Variance and mean in one pass.",
    # -- linear algebra --
    "addbmm": "beta * input + alpha * the sum over the batch of batch1 @ batch2.",
    "addmm": "beta * input + alpha * (mat1 @ mat2).",
    "addmv": "beta * input + alpha * (mat @ vec).",
    "addr": "beta * input + alpha * the outer product of vec1 and vec2.",
    "baddbmm": "beta * input + alpha * (batch1 @ batch2), per batch.",
    "bmm": "Batched matrix product of 3-D tensors.",
    "cdist": "Pairwise p-norm distances between two sets of row vectors.",
    "corrcoef": "Pearson correlation coefficients of the rows (variables) of input.",
    "cov": "Covariance matrix of the rows (variables) of input, with optional weights.",
    "dist": "p-norm of input - other.",
    "dot": "Inner product of two 1-D tensors.",
    "einsum": "Sums products of operands over the indices of an Einstein-notation equation.",
    "ger": "Outer product of two vectors (alias of outer).",
    "inner": "Inner product over the last dim of both tensors.",
    "kron": "Kronecker product.",
    "linalg_eig": "Eigenvalues and eigenvectors (unit-norm columns) of general square matrices, as complex tensors.",
    "linalg_ldl_factor_ex": "Bunch-Kaufman LDL^T factorization of symmetric (Hermitian) matrices: LD, pivots, info.",
    "linalg_ldl_solve": "Solution X of A X = B from A's LDL^T factorization.",
    "linalg_solve_triangular": "Solution X of A X = B (or X A = B) for triangular A.",
    "geqrf": "QR decomposition in LAPACK's compact form: R above the diagonal, Householder reflectors and tau.",
    "linalg_cholesky": "Cholesky factor of symmetric positive-definite matrices.",
    "linalg_eigh": "Eigenvalues and eigenvectors of symmetric (Hermitian) matrices.",
    "linalg_inv": "Inverse of square matrices.",
    "linalg_lstsq": "Least-squares solution of A X = B.",
    "linalg_qr": "QR decomposition.",
    "linalg_slogdet": "Sign and log of the absolute determinant.",
    "linalg_solve": "Solution X of A X = B for square A.",
    "linalg_svd": "Singular value decomposition.",
    "linalg_svdvals": "Singular values.",
    "linalg_vector_norm": "Vector p-norm over the given dims.",
    "linear": "Affine map input @ weight^T + bias.",
    "linear_backward": "Gradients of linear with respect to input, weight and bias (those output_mask asks for).",
    "matmul": "Matrix product with NumPy-style broadcasting of batch dims.",
    "mm": "Matrix product of two 2-D tensors.",
    "mv": "Matrix-vector product.",
    "outer": "Outer product of two vectors.",
    "trace": "Sum of the main diagonal of a matrix.",
    "vdot": "Inner product of two vectors, conjugating the first.",
    # -- neural network ops --
    "embedding": "Looks up rows of weight by index.",
    "log_softmax": "Logarithm of softmax along a dim, computed stably.",
    "native_layer_norm": "Layer normalization primitive: output, mean and reciprocal std.",
    "native_layer_norm_backward": "Gradients of native_layer_norm with respect to input, weight and bias.",
    "one_hot": "One-hot encoding of integer class indices.",
    "pad": "Pads the last dims (constant, reflect, replicate or circular).",
    "softmax": "Softmax along a dim: exp(x) normalized to sum to one.",
    # -- creation --
    "arange": "Evenly spaced values in [start, end) with a given step.",
    "empty": "An uninitialized tensor of the given size.",
    "empty_like": "An uninitialized tensor shaped like input.",
    "empty_strided": "An uninitialized tensor with the given size and strides.",
    "eye": "A 2-D tensor with ones on the diagonal.",
    "fill": "A new tensor like input with every element set to value.",
    "full": "A tensor of the given size filled with fill_value.",
    "full_like": "A tensor shaped like input filled with fill_value.",
    "linspace": "steps evenly spaced values from start to end inclusive.",
    "logspace": "steps values spaced evenly on a log scale from base^start to base^end.",
    "new_empty": "An uninitialized tensor with input's dtype and device.",
    "new_empty_strided": "An uninitialized strided tensor with input's dtype and device.",
    "new_full": "A filled tensor with input's dtype and device.",
    "new_ones": "A tensor of ones with input's dtype and device.",
    "new_zeros": "A tensor of zeros with input's dtype and device.",
    "ones": "A tensor of ones.",
    "ones_like": "A tensor of ones shaped like input.",
    "range": "Values from start to end inclusive with a given step (deprecated; use arange).",
    "tril_indices": "Row and column indices of the lower triangle of a matrix.",
    "triu_indices": "Row and column indices of the upper triangle of a matrix.",
    "vander": "Vandermonde matrix of the powers of x.",
    "zeros": "A tensor of zeros.",
    "zeros_like": "A tensor of zeros shaped like input.",
    # -- random --
    "bernoulli": "Draws 0/1 samples with the probabilities in input (or p).",
    "exponential_": "Fills input with samples from an exponential distribution.",
    "multinomial": "Samples category indices from rows of non-negative weights.",
    "normal": "Samples from normal distributions with the given means and standard deviations.",
    "rand": "Samples uniformly from [0, 1).",
    "rand_like": "Uniform samples from [0, 1) shaped like input.",
    "randint": "Samples integers uniformly from [low, high).",
    "randint_like": "Uniform integer samples shaped like input.",
    "randn": "Samples from the standard normal distribution.",
    "randn_like": "Standard normal samples shaped like input.",
    "random_": "Fills input with integers sampled uniformly from [from, to).",
    "randperm": "A random permutation of 0 .. n-1.",
    "uniform_": "Fills input with samples from the uniform distribution on [from, to).",
    # -- shape and views --
    "alias": "A view of input with the same geometry.",
    "as_strided": "A view with the given size, strides and storage offset.",
    "atleast_1d": "Views inputs with at least one dimension.",
    "atleast_2d": "Views inputs with at least two dimensions.",
    "atleast_3d": "Views inputs with at least three dimensions.",
    "broadcast_tensors": "Expands tensors to their common broadcast shape.",
    "broadcast_to": "Expands input to the given shape.",
    "chunk": "Splits into the given number of (nearly) equal chunks.",
    "contiguous": "A C-contiguous tensor with the same values (input itself if already).",
    "detach": "A view of input cut from the autograd graph.",
    "diagonal": "View of a diagonal of two dims.",
    "dsplit": "Splits along the third dim.",
    "expand": "View expanding size-1 dims to a larger size (no copy).",
    "flatten": "Flattens a range of dims into one.",
    "hsplit": "Splits along the second dim (first for 1-D).",
    "moveaxis": "Moves dims to new positions (alias of movedim).",
    "movedim": "Moves dims to new positions.",
    "narrow": "View of length elements starting at start along dim.",
    "permute": "View with dims reordered.",
    "reshape": "Same values in a new shape (a view when possible).",
    "select": "View of the slice at index along dim (that dim removed).",
    "slice": "View of start:end:step along dim.",
    "split": "Splits into chunks of a size, or of the listed sizes.",
    "squeeze": "Removes dims of size one.",
    "swapaxes": "Swaps two dims (alias of transpose).",
    "swapdims": "Swaps two dims (alias of transpose).",
    "t": "Transposes a 2-D tensor.",
    "tensor_split": "Splits into sections or at the given indices.",
    "transpose": "View with two dims swapped.",
    "unbind": "Removes a dim, returning the slices along it.",
    "unflatten": "Expands one dim into several.",
    "unfold": "View of sliding windows of size with step along a dim.",
    "unsqueeze": "View with a size-one dim inserted.",
    "view": "View with a new shape, or the same bytes read as another dtype.",
    "view_as_complex": "View of a real tensor with a last dim of 2 as complex numbers.",
    "view_as_real": "View of a complex tensor as reals with a trailing dim of 2.",
    "vsplit": "Splits along the first dim.",
    # -- joining, copying, indexing --
    "argsort": "Indices that sort input along a dim.",
    "argwhere": "Indices of the nonzero elements, one row each.",
    "bincount": "Counts of each non-negative integer value, optionally weighted.",
    "block_diag": "Block-diagonal matrix from the given tensors.",
    "bucketize": "Bucket index of each value among sorted boundaries.",
    "cartesian_prod": "Cartesian product of 1-D tensors, one combination per row.",
    "cat": "Concatenates tensors along an existing dim.",
    "clone": "A copy of input (in the autograd graph).",
    "column_stack": "Stacks 1-D and 2-D tensors as columns.",
    "combinations": "Length-r combinations of the elements of a 1-D tensor.",
    "concat": "Concatenates tensors along an existing dim (alias of cat).",
    "concatenate": "Concatenates tensors along an existing dim (alias of cat).",
    "copy_": "Copies src into input in place, broadcasting and converting.",
    "cumulative_trapezoid": "Running trapezoid-rule integral along a dim.",
    "diag": "Diagonal of a matrix, or a matrix with a vector on its diagonal.",
    "diag_embed": "Tensor whose diagonals (of two new dims) are filled from the last dim of input.",
    "diagflat": "2-D tensor with the flattened input on a diagonal.",
    "diagonal_scatter": "Copy of input with a diagonal replaced by src.",
    "diff": "n-th forward difference along a dim.",
    "dstack": "Stacks tensors along the third dim.",
    "flip": "Reverses the order of elements along dims.",
    "gather": "Values picked along a dim by an index tensor.",
    "hstack": "Stacks tensors horizontally (along the second dim, first for 1-D).",
    "index": "Advanced indexing input[indices] with tensors of indices.",
    "index_add": "Copy of input with alpha * source added at index along dim.",
    "index_copy": "Copy of input with source copied to index along dim.",
    "index_fill": "Copy of input with value written at index along dim.",
    "index_put": "Copy of input with values written (or accumulated) at tensor indices.",
    "index_select": "Slices of input at the given indices along a dim.",
    "masked_fill": "Copy of input with value where mask is true.",
    "masked_scatter": "Copy of input with consecutive source elements where mask is true.",
    "masked_select": "1-D tensor of the elements where mask is true.",
    "meshgrid": "Coordinate grids from 1-D tensors.",
    "nonzero": "Indices of the nonzero elements.",
    "put": "Copy of input with source written (or added) at flat indices.",
    "repeat": "Tiles input by the given repeats per dim.",
    "repeat_interleave": "Repeats each element (or slice along dim) a number of times.",
    "resize_": "Changes input's size in place, reallocating if needed.",
    "resize_as_": "Changes input's size in place to the template's, reallocating if needed.",
    "fill_diagonal_": "Writes a value on the main diagonal in place (wrapping for tall matrices if asked).",
    "cauchy_": "Fills in place with draws from a Cauchy distribution (median, sigma).",
    "log_normal_": "Fills in place with draws whose logarithm is normal (mean, std).",
    "geometric_": "Fills in place with the trial counts of a geometric distribution of success p.",
    "split_with_sizes": "Splits into chunks of the listed sizes along dim.",
    "unsafe_chunk": "Splits into a number of chunks, as chunk.",
    "unsafe_split": "Splits into chunks of a size, as split.",
    "unsafe_split_with_sizes": "Splits into chunks of the listed sizes, as split_with_sizes.",
    "narrow_copy": "A copy of length elements starting at start along dim.",
    "sum_to_size": "Sums broadcast dims away until the tensor has the given size.",
    "roll": "Rolls elements along dims by shifts, wrapping around.",
    "rot90": "Rotates by 90 degrees k times in the plane of two dims.",
    "row_stack": "Stacks tensors vertically (alias of vstack).",
    "scatter": "Copy of input with src (or a value) written at index along dim, optionally reduced.",
    "scatter_add": "Copy of input with src added at index along dim.",
    "searchsorted": "Insertion indices of values into a sorted sequence.",
    "select_scatter": "Copy of input with the slice at index along dim replaced by src.",
    "slice_scatter": "Copy of input with a start:end:step slice along dim replaced by src.",
    "as_strided_scatter": "Copy of input with the elements input.as_strided(size, stride, storage_offset) reads "
    "replaced by src.",
    "slice_inverse": "View of input's storage with src's geometry, input being src's start:end:step slice along dim.",
    "index_reduce": "Copy of input with source's slices reduced (prod, mean, amax, amin) into index along dim.",
    "sort": "Sorted values along a dim and their original indices.",
    "stack": "Joins tensors along a new dim.",
    "take": "Elements at flat indices of input.",
    "take_along_dim": "Values picked along a dim by indices (argsort/argmax style).",
    "tile": "Repeats input by the given repeats per dim (leading ones added).",
    "topk": "The k largest (or smallest) elements along a dim and their indices.",
    "trapezoid": "Trapezoid-rule integral along a dim.",
    "trapz": "Trapezoid-rule integral along a dim (alias of trapezoid).",
    "tril": "Lower triangle of matrices, the rest zeroed.",
    "triu": "Upper triangle of matrices, the rest zeroed.",
    "unique": "Sorted distinct elements, optionally with inverse indices and counts.",
    "vstack": "Stacks tensors vertically (along the first dim).",
    "zero_": "Fills input with zeros in place.",
    "adjoint": "Conjugate transpose of the last two dims (a view for real tensors).",
    "bartlett_window": "Triangular (Bartlett) window of window_length points.",
    "binomial": "Samples successes out of count trials with probability prob.",
    "blackman_window": "Blackman window of window_length points.",
    "chain_matmul": "Matrix product of a chain of 2-D tensors.",
    "cross": "Cross product of 3-vectors along a dim.",
    "fliplr": "Reverses the order of columns (the second dim).",
    "flipud": "Reverses the order of rows (the first dim).",
    "frobenius_norm": "Frobenius (2-) norm over the given dims.",
    "hamming_window": "Generalized Hamming window alpha - beta * cos(...) of window_length points.",
    "hann_window": "Hann (raised cosine) window of window_length points.",
    "histogram": "Histogram of the values and the bin edges used.",
    "kaiser_window": "Kaiser window with shape parameter beta.",
    "linalg_cross": "Cross product of 3-vectors along a dim, with broadcasting (linalg.cross).",
    "native_dropout": "Dropout returning the output and the keep mask.",
    "nonzero_static": "Indices of nonzero elements, padded or cut to a fixed number of rows.",
    "nuclear_norm": "Nuclear norm (sum of singular values) of matrices.",
    "poisson": "Samples from Poisson distributions with the rates in input.",
    "ravel": "Flattens input to one dim (a view when possible).",
    "renorm": "Rescales the slices along dim whose p-norm exceeds maxnorm down to maxnorm.",
    "scatter_reduce": "Copy of input with src reduced (sum, prod, mean, amax, amin) into index along dim.",
    "unique_consecutive": "Collapses runs of equal consecutive elements (or slices along dim).",
    "unravel_index": "Converts flat indices into coordinates for a shape.",
}


def _pyname(p, method):
    return "input" if p.name == "self" and not method else p.name


def _default(v):
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(map(str, v)) + "]"
    return str(v)


def _returns(op):
    rets = [r.split(" ")[0] for r in op.returns]
    rets = ["Tensor" if r.startswith("Tensor") else r for r in rets]
    return rets[0] if len(rets) == 1 else "(" + ", ".join(rets) + ")"


def documented_signature(op, method=False):
    """`add(input, other, *, alpha=1, out=None) -> Tensor` (methods: `Tensor.add(other, *, alpha=1)`)."""
    parts, keyword = [], False
    for i, p in enumerate(op.params):
        if method and i == 0:
            continue
        if p.kwarg_only and not keyword:
            parts.append("*")
            keyword = True
        name = _pyname(p, method)
        parts.append(f"{name}={_default(p.default)}" if p.has_default else name)
    if not method and "out" in op.variants:
        if not keyword:
            parts.append("*")
        parts.append("out=None")
    return f"{'Tensor.' if method else ''}{op.name}({', '.join(parts)}) -> {_returns(op)}"


# the in-place foreach forms (private names, so summary() does not derive them)
SUMMARIES.update(
    {
        f"{name}_": f"In-place form of {name}: {text[0].lower()}{text[1:]}"
        for name, text in list(SUMMARIES.items())
        if name.startswith("_foreach_")
        and not name.endswith("_")
        and name != "_foreach_norm"
        and name + "_" not in SUMMARIES
    }
)


def summary(name):
    text = SUMMARIES.get(name)
    if text is None and name.endswith("_") and not name.startswith("_"):
        base = SUMMARIES.get(name[:-1])
        if base is not None:
            return f"In-place form of {name[:-1]}: {base[0].lower()}{base[1:]}"
    return text


def docstring(ops, method=False):
    """Summary line, then the signature of each overload."""
    head = summary(ops[0].name) or ""
    sigs = "\n".join(documented_signature(o, method) for o in ops)
    return f"{head}\n\n{sigs}" if head else sigs


def mutation_section(width=100):
    """The Markdown list of the ops that write their arguments, for docs/PLUGINS.md (a test keeps
    that copy equal to this): the ops writing more than `self` in a table, then every in-place op."""
    from .registry import OPS

    table = ["| op | writes (version bumped by core) | writes (version left alone) |", "|---|---|---|"]
    self_only = []
    for q, op in sorted(OPS.items()):
        written = [p.name for p in op.params if p.writes]
        if not written:
            continue
        if written == ["self"] and 0 in op.mutated:
            self_only.append(f"`{q}`")
            continue
        bumped = [op.params[i].name for i in op.mutated]
        kept = [n for n in written if n not in bumped]
        table.append(f"| `{q}` | {', '.join(bumped) or '-'} | {', '.join(kept) or '-'} |")
    lines, cur = [], f"These {len(self_only)} write `self` only:"
    for word in self_only:
        if len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur += " " + word
    return "\n".join(table + [""] + lines + [cur]) + "\n"


def _wrapped(words, width, head=""):
    lines, cur = [], head
    for word in words:
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    return "\n".join(lines + [cur])


def _primitives(ops):
    rows = ["| op | schema | what the kernel does |", "|---|---|---|"]
    for q, op in sorted(ops.items()):
        if q.startswith("_"):
            text = (summary(op.name) or "").replace("|", "\\|")
            rows.append(f"| `{q}` | `{op.signature.replace('|', '¦')}` | {text} |")
    return rows


def _several_outputs(ops):
    rows = ["| op | outputs, in order |", "|---|---|"]
    for q, op in sorted(ops.items()):
        if len(op.returns) > 1:
            rows.append(f"| `{q}` | {', '.join(n or '?' for n in op.return_names)} |")
    return rows


def _tensor_lists(ops):
    rows = []
    for q, op in sorted(ops.items()):
        lists = [p.name for p in op.params if p.base == "Tensor" and p.is_list]
        if lists:
            rows.append(f"- `{q}`: {', '.join(lists)}")
    return rows


def op_reference(width=100):
    """The generated part of docs/PLUGINS.md's op reference (a test keeps that copy equal to this): the
    primitives with their schemas and duties, the outputs of every op with several, the composites a
    kernel may replace, the ops whose kernels get meta=None, and the ops taking lists of tensors."""
    from .registry import OPS

    composites = sorted(q for q, op in OPS.items() if op.composite is not None and op.view_fn is None)
    no_rule = sorted(q for q, op in OPS.items() if op.meta is None and op.view_fn is None and op.returns)
    no_result = sorted(q for q, op in OPS.items() if not op.returns)
    by_values = [q for q in no_rule if OPS[q].composite is None]
    decomposed = [q for q in no_rule if OPS[q].composite is not None]
    parts = [
        "#### The primitives (underscore ops): schema and duties",
        "",
        *_primitives(OPS),
        "",
        "#### Ops with several outputs (the tuple a kernel returns, in this order)",
        "",
        *_several_outputs(OPS),
        "",
        f"#### Composites a kernel may override ({len(composites)})",
        "",
        _wrapped([f"`{q}`" for q in composites], width),
        "",
        f"#### Kernels that receive `meta=None` ({len(no_rule) + len(no_result)})",
        "",
        _wrapped(
            [f"`{q}`" for q in by_values],
            width,
            f"No shape rule, the output shape depends on the values ({len(by_values)}):",
        ),
        "",
        _wrapped(
            [f"`{q}`" for q in decomposed], width, f"No shape rule, a composite defines the result ({len(decomposed)}):"
        ),
        "",
        _wrapped(
            [f"`{q}`" for q in no_result], width, f"No result to describe, the rule only checks ({len(no_result)}):"
        ),
        "",
        "#### Ops taking lists of tensors (passed as given: 0-dim cpu tensors in them are not moved)",
        "",
        *_tensor_lists(OPS),
    ]
    return "\n".join(parts) + "\n"
