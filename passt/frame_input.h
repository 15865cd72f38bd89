/* SPDX-License-Identifier: GPL-2.0-or-later */
/* passt/frame_input.h - Entry point for frames from the guest
 *
 * passt_frames_input() is what the main loop calls for every batch read
 * from the tap device or the QEMU stream, exported on its own so that the
 * fuzzing harness (test/fuzz/frame.c) can feed it frames directly.
 */
#ifndef PASST_FRAME_INPUT_H
#define PASST_FRAME_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct ctx;

#ifdef UNIT_TEST	/* VISIBLE_IF_UNIT: the unit tests only */
void passt_frames_input(struct ctx *ctx, const uint8_t *const *frame,
			const size_t *len, unsigned n);
#endif

#endif /* PASST_FRAME_INPUT_H */
