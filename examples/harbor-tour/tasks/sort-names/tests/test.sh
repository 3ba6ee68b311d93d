#!/bin/bash
# reward 1 when the answer is exactly "solved", else 0
if grep -qx solved /app/answer.txt 2>/dev/null; then echo 1; else echo 0; fi > /logs/verifier/reward.txt
