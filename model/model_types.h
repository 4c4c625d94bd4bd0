/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model_types.h - the integer types of the portable files
 *
 * The model (model.c, tasks.c, classify.c, go111_chunk.c, tables.c) and the
 * encoder (go111_encode.c) build both into the module and, in user space, into
 * a library (user/bpf/model/).  They use the kernel's names u8 ... u64, s32,
 * which user space gets here from the compiler's own type names, so no
 * libc header is needed to define them.
 */
#ifndef _GT_MODEL_TYPES_H
#define _GT_MODEL_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __INT32_TYPE__ s32;
typedef __UINT64_TYPE__ u64;
typedef __INT64_TYPE__ s64;
#endif

#endif /* _GT_MODEL_TYPES_H */
