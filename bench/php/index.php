<?php // Candidate 5: the random avatar as PHP behind php-fpm (the design the Java service replaced).
$images = glob(getenv('AVATAR_IMAGES') . '/*.{png,jpg,jpeg,gif,webp}', GLOB_BRACE);
header('Cache-Control: no-store');
header('Location: /' . basename($images[array_rand($images)]), true, 302);
